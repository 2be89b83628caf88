package cloudinit

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// snippetYAML is the cloud-config shown in the README's package section.
const snippetYAML = `## template: jinja
#cloud-config
write_files:
- path: /etc/kubernetes/pki/ca.crt
  encoding: gzip+base64
  owner: root:root
  permissions: '0640'
  content: H4sIAAAAAAAC/9PVBQInV3dPPwVn16AQTzdPZ8cQV5CgLpevp6dTWmJ2KheY6+rngqkEAISqARA/AAAA
- path: /run/kubeadm/kubeadm.yaml
  permissions: '0640'
  content: |
    nodeRegistration:
      name: '{{ ds.meta_data.local_hostname }}'
users:
- name: capi
  sudo: ALL=(ALL) NOPASSWD:ALL
  ssh_authorized_keys: [ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFAKE capi@example]
ntp:
  servers: [time.example.com]
runcmd:
- kubeadm init --config /run/kubeadm/kubeadm.yaml
`

// TestReadmeSnippet keeps README-snippet.md (pasted into the README) equal to what the
// code renders; go test -update rewrites it.
func TestReadmeSnippet(t *testing.T) {
	cfg := mustParse(t, []byte(snippetYAML), WithVariables(map[string]string{"local_hostname": "cp-0"}))
	script, err := Render(cfg)
	require.NoError(t, err)
	checkScript(t, script)
	want := "### `cloudinit`\n\n" +
		"Providers whose machines cannot run cloud-init (containers, bare metal over SSH, images\n" +
		"without cloud-init) turn the bootstrap data into a bash script with `cloudinit.Parse` and\n" +
		"`cloudinit.Render`, or into argv commands with `cloudinit.Commands`. Every module is rendered or\n" +
		"rejected by name; contents are written from base64 in quoted heredocs and every value is a\n" +
		"quoted word, so nothing in the bootstrap data is ever evaluated. This cloud-config, as the\n" +
		"kubeadm bootstrap provider writes it:\n\n" +
		"```yaml\n" + snippetYAML + "```\n\n" +
		"renders (`capkit render --var local_hostname=cp-0 user-data.yaml`) to:\n\n" +
		"```bash\n" + string(script) + "```\n"
	if *update {
		require.NoError(t, os.WriteFile("README-snippet.md", []byte(want), 0o644))
	}
	got, err := os.ReadFile("README-snippet.md")
	require.NoError(t, err)
	if diff := firstDiff(want, string(got)); diff != "" {
		t.Fatalf("README-snippet.md is stale (go test -update rewrites it): %s", diff)
	}
}
