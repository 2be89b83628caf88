package cloudinittest

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stubbed are the commands that record their arguments and succeed in the sandbox instead of running:
// those that change the host (services, mounts, kernel settings, host name, disks) or need a cluster.
var stubbed = []string{"kubeadm", "systemctl", "cloud-init-per", "swapoff", "swapon", "mount", "umount", "modprobe",
	"sysctl", "hostnamectl", "hostname", "chronyc", "mkfs", "mkfs.ext4", "mkfs.xfs", "mkswap", "parted", "sfdisk",
	"partprobe", "blkid", "udevadm", "growpart", "resize2fs", "xfs_growfs"}

// writable maps the sandbox's writable folders to their folder under the test's directory.
var writable = map[string]string{"/run": "run", "/var/lib": "varlib", "/home": "home", "/root": "root",
	"/usr/local/bin": "usrlocalbin", "/etc": "etc"}

// scriptPath is where Run puts the script in the sandbox.
const scriptPath = "/run/capkit-script.sh"

// Sandbox is a bubblewrap sandbox and, once a script ran in it, the outcome.
type Sandbox struct {
	dir string
	// Output is what the last script run printed.
	Output string
}

// RunInBubblewrap runs script with bash as root in a new sandbox and fails t when bubblewrap is missing
// (with the command that installs it) or the script fails.
func RunInBubblewrap(t testing.TB, script []byte) *Sandbox {
	t.Helper()
	sb := NewSandbox(t)
	if _, err := sb.Run(t, script); err != nil {
		t.Fatalf("the script failed in the sandbox: %v: %s", err, sb.Output)
	}
	return sb
}

// NewSandbox prepares a sandbox without running anything, so that a test can put files, folders and
// symbolic links into it (on the host at Path) before Run. It fails t when bubblewrap is missing.
func NewSandbox(t testing.TB) *Sandbox {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatalf("bubblewrap is not installed: run `make test`, which installs it (or apt-get install bubblewrap)")
	}
	sb := &Sandbox{dir: t.TempDir()}
	for _, host := range writable {
		if err := os.MkdirAll(filepath.Join(sb.dir, host), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("cp", "-a", "/etc/.", filepath.Join(sb.dir, "etc")).CombinedOutput(); err != nil {
		t.Fatalf("cannot copy /etc into the sandbox: %v: %s", err, out)
	}
	stubs := filepath.Join(sb.dir, "run", "capkit-stubs") // /run/capkit-stubs inside
	if err := os.MkdirAll(stubs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range stubbed {
		stub := "#!/bin/sh\necho \"" + name + " $*\" >> /run/capkit-stub-calls.log\n"
		if err := os.WriteFile(filepath.Join(stubs, name), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return sb
}

// Run runs script with bash as root in the sandbox, sets Output to what it printed and returns the error
// of the run: nil when the script succeeded, an *exec.ExitError when it failed.
func (sb *Sandbox) Run(t testing.TB, script []byte) (string, error) {
	t.Helper()
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatalf("bubblewrap is not installed: run `make test`, which installs it (or apt-get install bubblewrap)")
	}
	if err := os.WriteFile(sb.Path(t, scriptPath), script, 0o700); err != nil {
		t.Fatal(err)
	}
	args := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--unshare-pid", "--unshare-net", "--die-with-parent"}
	for inside, host := range writable {
		args = append(args, "--bind", filepath.Join(sb.dir, host), inside)
	}
	args = append(args, "--setenv", "PATH", "/run/capkit-stubs:/usr/sbin:/usr/bin:/sbin:/bin", "--",
		"/bin/bash", scriptPath)
	cmd := exec.Command(bwrap, args...)
	cmd.Env = []string{"LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	sb.Output = string(out)
	return sb.Output, err
}

// Path returns where path, as the script saw it, is on the host; it fails t for a path outside the
// sandbox's writable folders.
func (sb *Sandbox) Path(t testing.TB, path string) string {
	t.Helper()
	for inside, host := range writable {
		if rest, ok := strings.CutPrefix(path, inside+"/"); ok {
			return filepath.Join(sb.dir, host, rest)
		}
	}
	t.Fatalf("%s is outside the sandbox's writable folders", path)
	return ""
}

// ReadFile returns the content of path as the script left it, and fails t when it does not exist.
func (sb *Sandbox) ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(sb.Path(t, path))
	if err != nil {
		t.Fatalf("%s was not written: %v", path, err)
	}
	return data
}

// Files describes everything the sandbox's writable folders hold but the script that Run writes, by path
// as the script sees it: the mode, then for a file the SHA-256 of its content and for a symbolic link
// its target. Compare it before and after Run to see what a script created, changed or removed.
func (sb *Sandbox) Files(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for inside, host := range writable {
		top := filepath.Join(sb.dir, host)
		err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			desc := info.Mode().String()
			switch {
			case info.Mode().IsRegular():
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				desc += fmt.Sprintf(" %x", sha256.Sum256(data))
			case info.Mode()&fs.ModeSymlink != 0:
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				desc += " -> " + target
			}
			rel, err := filepath.Rel(top, p)
			if err != nil {
				return err
			}
			if p := filepath.Join(inside, rel); p != scriptPath {
				out[p] = desc
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Calls returns the stubbed commands the script called, one line each with its arguments, in order.
func (sb *Sandbox) Calls(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(sb.Path(t, "/run/capkit-stub-calls.log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}
