package cloudinit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stubbed are the commands a machine's script calls that change the host or need a cluster: in the sandbox
// they record their arguments and succeed. Everything else (useradd, chown, install, sh) runs for real.
var stubbed = []string{"kubeadm", "systemctl", "cloud-init-per", "swapoff", "swapon", "mount", "modprobe", "sysctl",
	"hostnamectl", "chronyc"}

// TestRenderedScriptRunsInBubblewrap renders kubeadm join bootstrap data as a Pods provider's machine would
// run it (real paths: no root prefix, no dry run) and runs it as root in a bubblewrap sandbox: the host is
// read-only, /etc is a copy, and /run, /var/lib, /home, /root and /usr/local/bin are folders of the test.
// Every file lands at its path with its content and mode, the user is created, kubeadm is called with the
// rendered configuration, and the bootstrap sentinel is written.
func TestRenderedScriptRunsInBubblewrap(t *testing.T) {
	bwrap := tool(t, "bwrap")
	cfg := mustParse(t, readTestdata(t, "worker-join.yaml"), WithVariables(testVars))
	script, err := Render(cfg)
	require.NoError(t, err)

	dir := t.TempDir()
	writable := map[string]string{"/run": "run", "/var/lib": "varlib", "/home": "home", "/root": "root",
		"/usr/local/bin": "usrlocalbin", "/etc": "etc"}
	for _, host := range writable {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, host), 0o755))
	}
	cp := exec.Command("cp", "-a", "/etc/.", filepath.Join(dir, "etc"))
	out, err := cp.CombinedOutput()
	require.NoError(t, err, "cannot copy /etc: %s", out)
	stubs := filepath.Join(dir, "run", "capkit-stubs") // inside the sandbox: /run/capkit-stubs
	require.NoError(t, os.MkdirAll(stubs, 0o755))
	for _, name := range stubbed {
		stub := "#!/bin/sh\necho \"" + name + " $*\" >> /run/stub-calls.log\n"
		require.NoError(t, os.WriteFile(filepath.Join(stubs, name), []byte(stub), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "capkit-script.sh"), script, 0o700))

	args := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--unshare-pid", "--unshare-net", "--die-with-parent"}
	for inside, host := range writable {
		args = append(args, "--bind", filepath.Join(dir, host), inside)
	}
	args = append(args, "--setenv", "PATH", "/run/capkit-stubs:/usr/sbin:/usr/bin:/sbin:/bin", "--",
		"/bin/bash", "/run/capkit-script.sh")
	cmd := exec.Command(bwrap, args...)
	cmd.Env = []string{"LC_ALL=C"}
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "the script failed in the sandbox: %s", out)

	// hostPath returns where a path inside the sandbox is on the host.
	hostPath := func(p string) string {
		for inside, host := range writable {
			if rest, ok := strings.CutPrefix(p, inside+"/"); ok {
				return filepath.Join(dir, host, rest)
			}
		}
		t.Fatalf("%s is outside the sandbox's writable folders", p)
		return ""
	}
	for _, f := range cfg.WriteFiles {
		got, err := os.ReadFile(hostPath(f.Path))
		require.NoError(t, err, "%s was not written", f.Path)
		assert.Equal(t, string(f.Content), string(got), "content of %s", f.Path)
		fi, err := os.Stat(hostPath(f.Path))
		require.NoError(t, err)
		assert.Equal(t, f.Permissions, unixPerm(fi.Mode()), "mode of %s", f.Path)
	}
	sentinel, err := os.ReadFile(hostPath(DefaultSentinel))
	require.NoError(t, err, "the bootstrap sentinel was not written")
	assert.Contains(t, string(sentinel), "success")

	calls, err := os.ReadFile(hostPath("/run/stub-calls.log"))
	require.NoError(t, err)
	assert.Contains(t, string(calls), "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml\n")
	passwd, err := os.ReadFile(hostPath("/etc/passwd"))
	require.NoError(t, err)
	assert.Contains(t, string(passwd), "\ncapi:", "the users module created the user")
	keys, err := os.ReadFile(hostPath("/home/capi/.ssh/authorized_keys"))
	require.NoError(t, err)
	assert.Contains(t, string(keys), "capi@example")
}
