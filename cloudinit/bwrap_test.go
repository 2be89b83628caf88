package cloudinit

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/cloudinit/cloudinittest"
)

// TestRenderedScriptRunsInBubblewrap renders kubeadm join bootstrap data as a Pods provider's machine would
// run it (real paths: no root prefix, no dry run) and runs it as root in a bubblewrap sandbox
// (cloudinittest). Every file lands at its path with its content and mode, the user is created, kubeadm is
// called with the rendered configuration, and the bootstrap sentinel is written.
func TestRenderedScriptRunsInBubblewrap(t *testing.T) {
	cfg := mustParse(t, readTestdata(t, "worker-join.yaml"), WithVariables(testVars))
	script, err := Render(cfg)
	require.NoError(t, err)
	sb := cloudinittest.RunInBubblewrap(t, script)

	for _, f := range cfg.WriteFiles {
		assert.Equal(t, string(f.Content), string(sb.ReadFile(t, f.Path)), "content of %s", f.Path)
		fi, err := os.Stat(sb.Path(t, f.Path))
		require.NoError(t, err)
		assert.Equal(t, f.Permissions, unixPerm(fi.Mode()), "mode of %s", f.Path)
	}
	assert.Contains(t, string(sb.ReadFile(t, DefaultSentinel)), "success")
	assert.Contains(t, sb.Calls(t), "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml")
	assert.Contains(t, string(sb.ReadFile(t, "/etc/passwd")), "\ncapi:", "the users module created the user")
	assert.Contains(t, string(sb.ReadFile(t, "/home/capi/.ssh/authorized_keys")), "capi@example")
}
