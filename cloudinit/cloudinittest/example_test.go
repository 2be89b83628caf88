package cloudinittest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/cloudinit"
	"github.com/capkit/capkit/cloudinit/cloudinittest"
)

// joinData is kubeadm join bootstrap data, cut to what the package doc's sketches check.
const joinData = `#cloud-config
write_files:
- path: /run/kubeadm/kubeadm-join-config.yaml
  content: "kind: JoinConfiguration\n"
runcmd:
- [kubeadm, join, --config, /run/kubeadm/kubeadm-join-config.yaml]
`

// TestPackageDoc runs the package doc's sketches, the regions "run" and "prepare".
func TestPackageDoc(t *testing.T) {
	cfg, err := cloudinit.Parse([]byte(joinData))
	require.NoError(t, err)
	// snippet:start run
	script, _ := cloudinit.Render(cfg)
	sb := cloudinittest.RunInBubblewrap(t, script)
	data := sb.ReadFile(t, "/run/kubeadm/kubeadm-join-config.yaml")
	calls := sb.Calls(t) // e.g. "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml"
	// snippet:end run
	assert.Equal(t, "kind: JoinConfiguration\n", string(data))
	assert.Equal(t, []string{"kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml"}, calls)

	t.Run("prepare", func(t *testing.T) {
		// snippet:start prepare
		sb := cloudinittest.NewSandbox(t)
		before := sb.Files(t)
		out, err := sb.Run(t, script)
		// snippet:end prepare
		require.NoError(t, err, out)
		after := sb.Files(t)
		assert.NotContains(t, before, "/run/kubeadm/kubeadm-join-config.yaml")
		assert.Contains(t, after, "/run/kubeadm/kubeadm-join-config.yaml")
	})
}
