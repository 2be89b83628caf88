package cloudinit

import (
	"encoding/base64"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseMaxSizeDoesNotOverflow checks that the largest limits (math.MaxInt) do not overflow the
// limit of a reader to a negative number, which read nothing: MIME parts, gzip user data and gzip
// contents parse whole.
func TestParseMaxSizeDoesNotOverflow(t *testing.T) {
	config := "#cloud-config\nruncmd: [kubeadm init]\nwrite_files: [{path: /a, encoding: gz+b64, content: " +
		base64.StdEncoding.EncodeToString(gz(t, "content")) + "}]\n"
	mime := "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/cloud-config\n\n" + config + "--B--\n"
	inputs := map[string][]byte{"cloud-config": []byte(config), "gzip": gz(t, config), "MIME": []byte(mime), "gzip MIME": gz(t, mime)}
	for name, data := range inputs {
		for _, n := range []int{math.MaxInt, math.MaxInt - 1, math.MaxInt/4 + 1} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				cfg, err := Parse(data, WithMaxSize(n))
				require.NoError(t, err)
				assert.Equal(t, []Cmd{{Shell: "kubeadm init"}}, cfg.RunCmd)
				require.Len(t, cfg.WriteFiles, 1)
				assert.Equal(t, "content", string(cfg.WriteFiles[0].Content))
				script, err := Render(cfg)
				require.NoError(t, err)
				assert.Contains(t, string(script), "capkit_run 'sh' '-c' 'kubeadm init'\n")
			})
		}
	}
}

// TestParseRejectsNonPositiveMaxSize checks that a limit of zero or less is an error, not a limit that
// nothing fits or that overflows.
func TestParseRejectsNonPositiveMaxSize(t *testing.T) {
	for _, n := range []int{0, -1, math.MinInt} {
		_, err := Parse([]byte("#cloud-config\n"), WithMaxSize(n))
		assert.ErrorIs(t, err, ErrInvalid)
		assert.EqualError(t, err, fmt.Sprintf("cannot parse user data: WithMaxSize: %d is not a positive number of bytes: invalid value", n))
	}
}

// TestParseBounds checks every bound where input enters Parse: each is an error wrapping ErrTooLarge
// that names the bound, its value and where the input exceeded it.
func TestParseBounds(t *testing.T) {
	big := strings.Repeat("a", 32<<10)
	parts := strings.Repeat("--B\nContent-Type: text/x-shellscript\n\n#!/bin/sh\n", maxMIMEParts+1)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"user data", []byte("#cloud-config\n#" + strings.Repeat("a", DefaultMaxSize)), "user data is 1048591 bytes, more than the limit of 1048576 bytes (WithMaxSize)"},
		{"gzip user data", gz(t, "#cloud-config\n#"+strings.Repeat("a", DefaultMaxSize)), "user data: gzip data decompresses to more than 1048576 bytes (WithMaxSize)"},
		{"gzip MIME part", []byte("Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Transfer-Encoding: base64\n\n" +
			base64.StdEncoding.EncodeToString(gz(t, "#!/bin/sh\n#"+strings.Repeat("a", DefaultMaxSize))) + "\n--B--\n"),
			"part[0]: gzip data decompresses to more than 1048576 bytes (WithMaxSize)"},
		{"MIME parts", []byte("Content-Type: multipart/mixed; boundary=B\n\n" + parts + "--B--\n"), "MIME multipart has more than 100 parts"},
		{"YAML nodes", []byte("#cloud-config\nruncmd: [" + strings.Repeat("a,", maxNodes) + "a]\n"), "document has more than 100000 YAML nodes (aliases counted)"},
		{"aliases", []byte("#cloud-config\nx: &f {path: /a, content: " + big + "}\nwrite_files: [" + strings.Repeat("*f, ", 200) + "*f]\n"),
			"content: decoded values exceed the limit of 4194304 bytes (4 × WithMaxSize; values repeated by aliases count each time)"},
		{"gzip content", []byte("#cloud-config\nwrite_files: [{path: /a, encoding: gz+b64, content: " + base64.StdEncoding.EncodeToString(gz(t, strings.Repeat("a", 5<<20))) + "}]\n"),
			"write_files[0].content: decoded values exceed the limit of 4194304 bytes"},
		{"jinja script", []byte("## template: jinja\n#!/bin/sh\n" + strings.Repeat("{{ x }}", 1000)), "shell script: jinja template renders to more than 1048576 bytes (WithMaxSize)"},
		{"jinja values", []byte("## template: jinja\n#cloud-config\nruncmd: [[echo, '" + strings.Repeat("{{ x }}", 1100) + "']]\n"),
			"runcmd[0][1]: decoded values exceed the limit of 4194304 bytes"},
	}
	vars := WithVariables(map[string]string{"x": strings.Repeat("a", maxVarSize)})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.data, vars, WithLenient())
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrTooLarge)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestDefaultBoundsFitRealInputs parses a control-plane cloud-config twice the size of the largest
// real one (kubeadm init with every certificate, about 60 KB) with the default bounds, as it is, gzip
// compressed, and in a gzip-compressed MIME archive.
func TestDefaultBoundsFitRealInputs(t *testing.T) {
	sample := string(readTestdata(t, "controlplane-init.yaml"))
	var extra strings.Builder
	pem := "-----BEGIN CERTIFICATE-----\n" + strings.Repeat(strings.Repeat("Q", 64)+"\n", 20) + "-----END CERTIFICATE-----\n"
	for i := 0; len(sample)+extra.Len() < 120<<10; i++ {
		fmt.Fprintf(&extra, "-   path: /etc/kubernetes/pki/extra-%d.crt\n    owner: root:root\n    permissions: '0640'\n    content: |\n      %s",
			i, strings.ReplaceAll(strings.TrimSuffix(pem, "\n"), "\n", "\n      ")+"\n")
		fmt.Fprintf(&extra, "-   path: /etc/kubernetes/pki/extra-%d.gz\n    encoding: gz+b64\n    content: %s\n", i, base64.StdEncoding.EncodeToString(gz(t, pem)))
	}
	config := strings.Replace(sample, "write_files:\n", "write_files:\n"+extra.String(), 1)
	mime := "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/cloud-config\n\n" + config + "--B--\n"
	for name, data := range map[string][]byte{"plain": []byte(config), "gzip": gz(t, config), "gzip MIME": gz(t, mime)} {
		t.Run(name, func(t *testing.T) {
			cfg := mustParse(t, data, WithVariables(testVars))
			assert.Greater(t, len(cfg.WriteFiles), 40)
			_, err := Render(cfg)
			require.NoError(t, err)
		})
	}
}
