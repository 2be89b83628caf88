package cloudinit

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unixPerm returns the permission bits of a mode as chmod takes them.
func unixPerm(m fs.FileMode) uint32 {
	p := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		p |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		p |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		p |= 0o1000
	}
	return p
}

// TestExecuteSamples runs the rendered samples under a root prefix with the system commands
// recorded, and checks every written file byte for byte and its mode.
func TestExecuteSamples(t *testing.T) {
	for _, name := range samples {
		t.Run(name, func(t *testing.T) {
			cfg := mustParse(t, readTestdata(t, name+".yaml"), WithVariables(testVars))
			sb := newSandbox(t)
			sb.run(t, cfg)
			files := tree(t, sb.root)
			require.NotEmpty(t, cfg.WriteFiles)
			for _, f := range cfg.WriteFiles {
				got, ok := files[f.Path]
				require.True(t, ok, "%s was not written", f.Path)
				assert.Equal(t, string(f.Content), got.content, "content of %s", f.Path)
				assert.Equal(t, f.Permissions, unixPerm(got.mode), "mode of %s: %#o", f.Path, unixPerm(got.mode))
			}
			assert.Equal(t, "success\n", files[DefaultSentinel].content)
			assert.Equal(t, uint32(0o644), unixPerm(files[DefaultSentinel].mode))

			// Every runcmd and bootcmd entry is recorded, in order, with its exact argv.
			var want [][]string
			for _, c := range cfg.BootCmd {
				want = append(want, cmdArgv(c))
			}
			for _, c := range cfg.RunCmd {
				want = append(want, cmdArgv(c))
			}
			var got [][]string
			for _, r := range sb.recorded(t) {
				if !strings.HasPrefix(r[0], "capkit_") && r[0] != "passwd" && r[0] != "mount" && r[0] != "swapon" {
					got = append(got, r)
				}
			}
			assert.Equal(t, want, got)
		})
	}
}

// TestExecuteGzipContentIsGunzipped checks that certificates written with every encoding
// (plain, base64, b64, gzip+base64, gz+b64) by the init sample come out equal to the same
// certificates written gzip+base64 by the join sample, and are PEM text.
func TestExecuteGzipContentIsGunzipped(t *testing.T) {
	init, join := newSandbox(t), newSandbox(t)
	init.run(t, mustParse(t, readTestdata(t, "controlplane-init.yaml"), WithVariables(testVars)))
	joinCfg := mustParse(t, readTestdata(t, "controlplane-join.yaml"), WithVariables(testVars))
	join.run(t, joinCfg)
	initFiles, joinFiles := tree(t, init.root), tree(t, join.root)
	encodings := map[string]bool{}
	for _, f := range joinCfg.WriteFiles {
		if !strings.HasPrefix(f.Path, "/etc/kubernetes/pki/") {
			continue
		}
		assert.Equal(t, "gzip+base64", f.Encoding)
		assert.True(t, strings.HasPrefix(joinFiles[f.Path].content, "-----BEGIN "), "%s is not PEM", f.Path)
		assert.Equal(t, initFiles[f.Path].content, joinFiles[f.Path].content, "%s", f.Path)
	}
	for _, f := range mustParse(t, readTestdata(t, "controlplane-init.yaml"), WithVariables(testVars)).WriteFiles {
		encodings[f.Encoding] = true
	}
	assert.Equal(t, map[string]bool{"": true, "base64": true, "b64": true, "gzip+base64": true, "gz+b64": true}, encodings)
}

// TestExecuteModules checks what the other modules write and record.
func TestExecuteModules(t *testing.T) {
	cfg := mustParse(t, readTestdata(t, "controlplane-init.yaml"), WithVariables(testVars))
	sb := newSandbox(t)
	// Existing files that the modules must update, not replace.
	for p, content := range map[string]string{
		"/etc/fstab":                         "UUID=abc / ext4 defaults 0 1\n/dev/old /old auto defaults,comment=cloudconfig 0 2\n",
		"/etc/hosts":                         "127.0.0.1 localhost\n127.0.1.1 old-name\n",
		"/etc/sysctl.d/99-kubernetes.conf":   "vm.swappiness = 0\n",
		"/home/capi/.ssh/authorized_keys":    "ssh-ed25519 AAAAexisting old@example\n",
		"/etc/chrony/.keep-for-client-check": "",
	} {
		require.NoError(t, os.MkdirAll(filepath.Dir(sb.root+p), 0o755))
		require.NoError(t, os.WriteFile(sb.root+p, []byte(content), 0o644))
	}
	sb.run(t, cfg)
	files := tree(t, sb.root)

	assert.Equal(t, "UUID=abc / ext4 defaults 0 1\nLABEL=etcd_disk\t/var/lib/etcddisk\tauto\tdefaults,nofail,comment=cloudconfig\t0\t2\n", files["/etc/fstab"].content)
	assert.True(t, files["/var/lib/etcddisk"].mode.IsDir(), "mount point created")
	assert.Equal(t, "127.0.0.1 localhost\n127.0.1.1 cp-0\n", files["/etc/hosts"].content)
	assert.Equal(t, "cp-0\n", files["/etc/hostname"].content)
	assert.Equal(t, "vm.swappiness = 0\nnet.ipv4.ip_forward = 1\nnet.bridge.bridge-nf-call-iptables = 1\n", files["/etc/sysctl.d/99-kubernetes.conf"].content)
	assert.Equal(t, "ssh-ed25519 AAAAexisting old@example\n"+strings.Join(cfg.Users[0].SSHAuthorizedKeys, "\n")+"\n", files["/home/capi/.ssh/authorized_keys"].content)
	assert.Equal(t, uint32(0o600), unixPerm(files["/home/capi/.ssh/authorized_keys"].mode))
	assert.Equal(t, uint32(0o700), unixPerm(files["/home/capi/.ssh"].mode))
	assert.Equal(t, "# Written by capkit from the cloud-config users module.\n\n# User rules for capi\ncapi ALL=(ALL) NOPASSWD:ALL\n", files["/etc/sudoers.d/90-cloud-init-users"].content)
	assert.Equal(t, uint32(0o440), unixPerm(files["/etc/sudoers.d/90-cloud-init-users"].mode))
	assert.Equal(t, "# Written by capkit from the cloud-config ntp module.\nserver 0.capkit.pool.ntp.org iburst\nserver time.example.com iburst\ndriftfile /var/lib/chrony/chrony.drift\nmakestep 1.0 3\nrtcsync\n", files["/etc/chrony/chrony.conf"].content)

	assert.Equal(t, [][]string{
		{"capkit_partition", "/dev/sdb", "false", "mklabel", "gpt", "mkpart", "primary", "0%", "100%"},
		{"capkit_mkfs", "/dev/sdb1", "false", "", "mkfs.ext4", "-L", "etcd_disk", "-E", "lazy_itable_init=1,lazy_journal_init=1", "/dev/sdb1"},
		{"capkit_systemd_reload"},
		{"mount", "-a"},
		{"capkit_hostname", "cp-0"},
		{"capkit_groupadd", "sudo"},
		{"capkit_groupadd", "adm"},
		{"capkit_useradd", "capi", "--comment", "Cluster API admin", "--groups", "sudo,adm", "--shell", "/bin/bash", "--create-home"},
		{"passwd", "-l", "capi"},
		{"capkit_groupadd", "etcd"},
		{"capkit_useradd", "etcd", "--gid", "etcd", "--shell", "/usr/sbin/nologin", "--system", "--no-create-home"},
		{"passwd", "-l", "etcd"},
		{"capkit_ntp_restart", sb.root, "auto"},
		{"sh", "-c", "swapoff -a"},
		{"systemctl", "enable", "--now", "containerd"},
		{"sh", "-c", "kubeadm init --config /run/kubeadm/kubeadm.yaml  && echo success > /run/cluster-api/bootstrap-success.complete"},
		{"sh", "-c", `echo "control plane $(hostname) initialised" > /var/log/capkit-init.log`},
	}, sb.recorded(t))
}

// TestExecuteSentinelOnlyAfterSuccess checks that a failing step stops the script before the
// sentinel is written.
func TestExecuteSentinelOnlyAfterSuccess(t *testing.T) {
	sb := newSandbox(t)
	// /etc is a file, so writing /etc/x fails.
	require.NoError(t, os.WriteFile(filepath.Join(sb.root, "etc"), nil, 0o644))
	cfg := &Config{WriteFiles: []File{{Path: "/etc/x", Owner: "root", Permissions: 0o644, Content: []byte("x")}}}
	script, err := Render(cfg, WithRoot(sb.root), WithDryRun(sb.log))
	require.NoError(t, err)
	f := filepath.Join(t.TempDir(), "s.sh")
	require.NoError(t, os.WriteFile(f, script, 0o600))
	out, err := exec.Command("bash", f).CombinedOutput()
	require.Error(t, err, "%s", out)
	_, err = os.Stat(sb.root + DefaultSentinel)
	assert.True(t, os.IsNotExist(err), "sentinel written although a step failed")
}

// TestCommandsMatchScript runs Commands in one sandbox (system commands recorded) and the
// script in another: the files, modes and recorded commands are the same.
func TestCommandsMatchScript(t *testing.T) {
	for _, name := range samples {
		t.Run(name, func(t *testing.T) {
			cfg := mustParse(t, readTestdata(t, name+".yaml"), WithVariables(testVars))
			script := newSandbox(t)
			script.run(t, cfg)

			cmds := newSandbox(t)
			commands, err := Commands(cfg, WithRoot(cmds.root))
			require.NoError(t, err)
			var recorded [][]string
			for _, c := range commands {
				if c.System {
					if c.Argv[0] == "sh" && len(c.Argv) > 3 && strings.HasPrefix(c.Argv[3], "capkit_") {
						recorded = append(recorded, c.Argv[3:])
					} else {
						recorded = append(recorded, c.Argv)
					}
					continue
				}
				cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
				cmd.Stdin = strings.NewReader(string(c.Stdin))
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s: %s", c.Module, out)
			}
			want := tree(t, script.root)
			got := tree(t, cmds.root)
			require.Equal(t, len(want), len(got))
			for p, w := range want {
				assert.Equal(t, w, got[p], "%s", p)
			}
			assert.Equal(t, fixRoot(script.recorded(t)), fixRoot(recorded))
		})
	}
}

// fixRoot replaces the root argument of capkit_ntp_restart, which differs between sandboxes.
func fixRoot(r [][]string) [][]string {
	for _, c := range r {
		if c[0] == "capkit_ntp_restart" {
			c[1] = "ROOT"
		}
	}
	return r
}
