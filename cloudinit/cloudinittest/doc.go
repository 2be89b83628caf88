// Package cloudinittest runs a machine's bootstrap script the way a machine would, for a provider's tests. It runs it
// as root, at real paths, in a bubblewrap sandbox (the Debian package bubblewrap) where the host is read-only, /etc is
// a copy, and /run, /var/lib, /home, /root and /usr/local/bin are folders of the test. The commands that would change
// the host or need a cluster (kubeadm, systemctl, mount, ...) are stubs that record their arguments, so a test checks
// what the script wrote and what it called:
//
//	script, _ := cloudinit.Render(cfg)
//	sb := cloudinittest.RunInBubblewrap(t, script)
//	data := sb.ReadFile(t, "/run/kubeadm/kubeadm-join-config.yaml")
//	calls := sb.Calls(t) // e.g. "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml"
//
// To prepare the sandbox first (files, folders or symbolic links at sb.Path), or to run a script that is
// expected to fail, use NewSandbox and Run; Files describes everything the writable folders hold, so a
// test can compare it before and after a run:
//
//	sb := cloudinittest.NewSandbox(t)
//	before := sb.Files(t)
//	out, err := sb.Run(t, script)
package cloudinittest
