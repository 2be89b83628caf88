package cloudinit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// kubeadm64KiB returns the control-plane init sample grown to 64 KiB with more files, as a
// control plane with many certificates and manifests has.
func kubeadm64KiB(b *testing.B) []byte {
	data := readTestdata(b, "controlplane-init.yaml")
	head, tail, ok := bytes.Cut(data, []byte("write_files:\n"))
	if !ok {
		b.Fatal("sample has no write_files")
	}
	var extra strings.Builder
	for i := 0; len(data)+extra.Len() < 64<<10; i++ {
		fmt.Fprintf(&extra, "-   path: /etc/kubernetes/manifests/extra-%03d.yaml\n    owner: root:root\n    permissions: '0600'\n    content: |\n", i)
		for j := 0; j < 8; j++ {
			fmt.Fprintf(&extra, "      key-%d: %s\n", j, strings.Repeat("v", 60))
		}
	}
	out := append(append(append(head, "write_files:\n"...), extra.String()...), tail...)
	return out[:len(out):len(out)]
}

// BenchmarkParseRender parses and renders a 64 KiB kubeadm cloud-config.
func BenchmarkParseRender(b *testing.B) {
	data := kubeadm64KiB(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		cfg, err := Parse(data, WithVariables(testVars))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Render(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender renders a parsed 64 KiB kubeadm cloud-config.
func BenchmarkRender(b *testing.B) {
	data := kubeadm64KiB(b)
	cfg, err := Parse(data, WithVariables(testVars))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(cfg); err != nil {
			b.Fatal(err)
		}
	}
}
