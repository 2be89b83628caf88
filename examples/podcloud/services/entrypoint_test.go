package services_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/podcloud/services"
)

// tool returns the path of a program the tests need. A missing tool fails the test: run make test, which
// installs shellcheck and bubblewrap.
func tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed: run `make test`, which installs it (or apt-get install %s)", name, name)
	}
	return p
}

// writeEntrypoint writes the embedded entrypoint to a file of the test.
func writeEntrypoint(t *testing.T) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), services.EntrypointFile)
	require.NoError(t, os.WriteFile(f, []byte(services.Entrypoint), 0o600))
	return f
}

func TestEntrypointShellcheck(t *testing.T) {
	f := writeEntrypoint(t)
	out, err := exec.Command(tool(t, "bash"), "-n", f).CombinedOutput()
	require.NoError(t, err, "bash -n: %s", out)
	out, err = exec.Command(tool(t, "shellcheck"), "--shell=bash", "--severity=style", f).CombinedOutput()
	require.NoError(t, err, "shellcheck:\n%s", out)
}

// runEntrypoint runs the entrypoint with bash under PODCLOUD_ROOT=root (a dry run: files only).
func runEntrypoint(t *testing.T, f, root string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(tool(t, "bash"), f)
	cmd.Env = append(os.Environ(), "PODCLOUD_ROOT="+root)
	return cmd.CombinedOutput()
}

// TestEntrypointInstallsTheBootstrapUnit runs the entrypoint as a Pod would, under a root prefix: it
// installs the bootstrap script where the unit runs it (mode 0700), writes the unit and enables it, and
// exits 0; run again (a container restarted), it does the same.
func TestEntrypointInstallsTheBootstrapUnit(t *testing.T) {
	f := writeEntrypoint(t)
	root := t.TempDir()
	script := "#!/bin/bash\necho bootstrap\n"
	src := filepath.Join(root, services.MountPath, services.BootstrapFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(src), 0o755))
	require.NoError(t, os.WriteFile(src, []byte(script), 0o500)) // the Secret volume's mode

	for _, run := range []string{"first run", "second run"} {
		out, err := runEntrypoint(t, f, root)
		require.NoError(t, err, "%s: %s", run, out)

		installed := filepath.Join(root, "opt/cloud-init/bootstrap.sh")
		data, err := os.ReadFile(installed)
		require.NoError(t, err, run)
		assert.Equal(t, script, string(data), run)
		fi, err := os.Stat(installed)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), run)

		unitPath := filepath.Join(root, "etc/systemd/system/podcloud-bootstrap.service")
		unit, err := os.ReadFile(unitPath)
		require.NoError(t, err, run)
		for _, line := range []string{
			"After=containerd.service",
			"ConditionPathExists=!/run/cluster-api/bootstrap-success.complete",
			"Type=oneshot",
			"ExecStart=/bin/bash /opt/cloud-init/bootstrap.sh",
			"WantedBy=multi-user.target",
		} {
			assert.Contains(t, string(unit), line+"\n", run)
		}

		wants := filepath.Join(root, "etc/systemd/system/multi-user.target.wants/podcloud-bootstrap.service")
		target, err := os.Readlink(wants)
		require.NoError(t, err, run)
		assert.Equal(t, "../podcloud-bootstrap.service", target, run)
		linked, err := os.ReadFile(wants)
		require.NoError(t, err, "%s: the symlink resolves", run)
		assert.Equal(t, unit, linked, run)
	}
}

// TestEntrypointFailsWithoutBootstrapScript: a Pod whose Secret has no bootstrap script must fail, not boot
// a node that never joins.
func TestEntrypointFailsWithoutBootstrapScript(t *testing.T) {
	out, err := runEntrypoint(t, writeEntrypoint(t), t.TempDir())
	require.Error(t, err, "%s", out)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.NotZero(t, exit.ExitCode())
}
