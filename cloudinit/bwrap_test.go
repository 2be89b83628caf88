package cloudinit

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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

// imageRoot is the root prefix of the bubblewrap tests that render under WithRoot: a folder of the
// sandbox's writable /var/lib, so that an escape from it lands in another writable folder.
const imageRoot = "/var/lib/image"

// symlinks creates symbolic links in a sandbox, each with its parent folders.
func symlinks(t *testing.T, sb *cloudinittest.Sandbox, links map[string]string) {
	t.Helper()
	for link, target := range links {
		require.NoError(t, os.MkdirAll(filepath.Dir(sb.Path(t, link)), 0o755))
		require.NoError(t, os.Symlink(target, sb.Path(t, link)))
	}
}

// changedOutside returns the paths that were created, changed or removed between two descriptions of a
// sandbox (cloudinittest.Sandbox.Files), but those under root and those in except.
func changedOutside(before, after map[string]string, root string, except ...string) []string {
	skip := func(p string) bool {
		return root != "" && (p == root || strings.HasPrefix(p, root+"/")) || slices.Contains(except, p)
	}
	var changed []string
	for p, desc := range after {
		if before[p] != desc && !skip(p) {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok && !skip(p) {
			changed = append(changed, p+" (removed)")
		}
	}
	sort.Strings(changed)
	return changed
}

// TestRenderUnderRootStaysInRootThroughSymlinks renders every module that writes under the root prefix
// into a root whose folders are symbolic links: absolute (var/run -> /run, as images have), relative
// with a ".." chain that climbs above the root, and to folders outside it. It runs the script as root in
// bubblewrap: nothing outside the root changes, and every file lands where a chroot into the root would
// put it (an absolute target is taken from the root, ".." stops at the root).
func TestRenderUnderRootStaysInRootThroughSymlinks(t *testing.T) {
	sb := cloudinittest.NewSandbox(t)
	symlinks(t, sb, map[string]string{
		imageRoot + "/var/run":         "/run",
		imageRoot + "/etc":             "../../../../../../var/lib/etc-out",
		imageRoot + "/home":            "/root/homes",
		imageRoot + "/data":            "/var/lib/data-out",
		imageRoot + "/var/lib/capkit":  "../../../../../../run/scripts-out",
		imageRoot + "/var/log/app.log": "/var/lib/app.log", // the file itself, appended to
	})
	for _, p := range []string{"/var/lib/etc-out", "/root/homes", "/var/lib/data-out", "/run/scripts-out"} {
		require.NoError(t, os.MkdirAll(sb.Path(t, p), 0o755), "the targets exist outside the root")
	}
	require.NoError(t, os.WriteFile(sb.Path(t, "/var/lib/app.log"), nil, 0o644))
	before := sb.Files(t)
	cfg := &Config{
		WriteFiles: []File{
			{Path: "/var/run/f", Content: []byte("f\n"), Owner: "root", Permissions: 0o644},
			{Path: "/var/run/log", Content: []byte("appended\n"), Owner: "root", Permissions: 0o600, Append: true},
			{Path: "/etc/kubernetes/admin.conf", Content: []byte("conf\n"), Owner: "root", Permissions: 0o600, Defer: true},
			{Path: "/var/log/app.log", Content: []byte("line\n"), Owner: "root", Permissions: 0o644, Append: true},
		},
		Hostname: Hostname{Hostname: "node-0", ManageEtcHosts: "localhost"},
		Users:    []User{{Name: "capi", SSHAuthorizedKeys: []string{"ssh-ed25519 AAAA capi@example"}, Sudo: []string{"ALL=(ALL) NOPASSWD:ALL"}}},
		NTP:      &NTP{Enabled: true, Client: "auto", Servers: []string{"time.example.com"}},
		Mounts:   []Mount{{Spec: "/dev/sdb", File: "/data/mnt", Type: "ext4", Options: "defaults", Freq: "0", Passno: "2"}},
		Scripts:  []Script{{Name: "prepare.sh", Content: []byte("#!/bin/sh\necho prepared\n")}},
	}
	script, err := Render(cfg, WithRoot(imageRoot), WithDryRun("/var/lib/dry-run.log"))
	require.NoError(t, err)
	_, err = sb.Run(t, script)
	require.NoError(t, err, "%s", sb.Output)

	assert.Empty(t, changedOutside(before, sb.Files(t), imageRoot, "/var/lib/dry-run.log"), "changed outside the root")
	for p, want := range map[string]string{
		"/run/f":                                      "f\n",
		"/run/log":                                    "appended\n",
		"/var/lib/etc-out/kubernetes/admin.conf":      "conf\n",
		"/var/lib/etc-out/hostname":                   "node-0\n",
		"/var/lib/etc-out/hosts":                      "127.0.1.1 node-0\n",
		"/root/homes/capi/.ssh/authorized_keys":       "ssh-ed25519 AAAA capi@example\n",
		"/run/scripts-out/scripts/prepare.sh":         "#!/bin/sh\necho prepared\n",
		"/run/cluster-api/bootstrap-success.complete": "success\n",
	} {
		assert.Equal(t, want, string(sb.ReadFile(t, imageRoot+p)), "%s in the root", p)
	}
	for _, p := range []string{"/var/lib/etc-out/fstab", "/var/lib/etc-out/sudoers.d/90-cloud-init-users", "/var/lib/etc-out/systemd/timesyncd.conf.d/cloud-init.conf"} {
		assert.FileExists(t, sb.Path(t, imageRoot+p))
	}
	assert.DirExists(t, sb.Path(t, imageRoot+"/var/lib/data-out/mnt"), "the mount point")
}

// TestRenderUnderRootRefusesSymlinkLoops checks that a symbolic link loop in the root stops the script
// with a message naming the path, before anything is written outside the root.
func TestRenderUnderRootRefusesSymlinkLoops(t *testing.T) {
	sb := cloudinittest.NewSandbox(t)
	symlinks(t, sb, map[string]string{imageRoot + "/loop": "/loop", imageRoot + "/a": "b", imageRoot + "/b": "/a"})
	for _, p := range []string{"/loop/f", "/a/f"} {
		t.Run(p, func(t *testing.T) {
			before := sb.Files(t)
			script, err := Render(&Config{WriteFiles: []File{{Path: p, Owner: "root", Permissions: 0o644}}}, WithRoot(imageRoot))
			require.NoError(t, err)
			_, err = sb.Run(t, script)
			require.Error(t, err, "%s", sb.Output)
			assert.Contains(t, sb.Output, "capkit: cannot resolve "+p+": more than 40 symbolic links")
			assert.Empty(t, changedOutside(before, sb.Files(t), ""), "nothing was written")
		})
	}
}

// TestRenderRefusesFolderTargets checks that a write_files target that is a folder (or a symbolic link to
// one) fails the script with a message naming the path, leaves the folder as it was and writes no
// sentinel, with and without a root prefix.
func TestRenderRefusesFolderTargets(t *testing.T) {
	tests := []struct {
		name, path, root string
		append           bool
	}{
		{"replace", "/var/lib/target", "", false},
		{"append", "/var/lib/target", "", true},
		{"symbolic link to a folder", "/var/lib/link", "", false},
		{"under a root", "/target", imageRoot, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := cloudinittest.NewSandbox(t)
			folder := sb.Path(t, tt.root+"/var/lib/target")
			if tt.root != "" {
				folder = sb.Path(t, tt.root+tt.path)
			}
			require.NoError(t, os.MkdirAll(folder, 0o755))
			symlinks(t, sb, map[string]string{"/var/lib/link": "/var/lib/target"})
			opts := []RenderOption{}
			if tt.root != "" {
				opts = append(opts, WithRoot(tt.root))
			}
			script, err := Render(&Config{WriteFiles: []File{{Path: tt.path, Content: []byte("x"), Owner: "root", Permissions: 0o644, Append: tt.append}}}, opts...)
			require.NoError(t, err)
			_, err = sb.Run(t, script)
			require.Error(t, err, "%s", sb.Output)
			assert.Contains(t, sb.Output, "capkit: cannot write "+tt.path+": it is a folder")
			entries, err := os.ReadDir(folder)
			require.NoError(t, err)
			assert.Empty(t, entries, "the folder is left as it was")
			assert.NoFileExists(t, sb.Path(t, tt.root+DefaultSentinel), "no sentinel after a failure")
		})
	}
}
