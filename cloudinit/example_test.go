package cloudinit_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/capkit/capkit/cloudinit"
)

// userData is bootstrap data as the kubeadm bootstrap provider writes it.
const userData = `## template: jinja
#cloud-config
write_files:
- path: /run/kubeadm/kubeadm.yaml
  owner: root:root
  permissions: '0640'
  content: |
    nodeRegistration:
      name: '{{ ds.meta_data.local_hostname }}'
runcmd:
- 'kubeadm init --config /run/kubeadm/kubeadm.yaml'
packages: [nginx]
`

func ExampleParse() {
	_, err := cloudinit.Parse([]byte(userData), cloudinit.WithVariables(map[string]string{"local_hostname": "cp-0"}))
	fmt.Println(errors.Is(err, cloudinit.ErrUnsupported), err)

	cfg, err := cloudinit.Parse([]byte(userData),
		cloudinit.WithVariables(map[string]string{"local_hostname": "cp-0"}),
		cloudinit.WithLenient())
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.Kind, cfg.Jinja, cfg.Skipped)
	fmt.Printf("%s %04o %q\n", cfg.WriteFiles[0].Path, cfg.WriteFiles[0].Permissions, cfg.WriteFiles[0].Content)
	fmt.Printf("%q\n", cfg.RunCmd[0].Shell)
	// Output:
	// true cannot parse user data: packages: module not supported
	// cloud-config true [packages (module not supported)]
	// /run/kubeadm/kubeadm.yaml 0640 "nodeRegistration:\n  name: 'cp-0'\n"
	// "kubeadm init --config /run/kubeadm/kubeadm.yaml"
}

func ExampleRender() {
	cfg, err := cloudinit.Parse([]byte("#cloud-config\nruncmd: [[kubeadm, join, --config, /run/kubeadm/join.yaml]]\n"))
	if err != nil {
		panic(err)
	}
	script, err := cloudinit.Render(cfg)
	if err != nil {
		panic(err)
	}
	// Print the steps, without the helper functions defined at the top of the script.
	body := string(script[strings.Index(string(script), "# runcmd[0]"):])
	fmt.Print(body)
	// Output:
	// # runcmd[0]
	// capkit_run 'kubeadm' 'join' '--config' '/run/kubeadm/join.yaml'
	//
	// # sentinel
	// capkit_write '/run/cluster-api/bootstrap-success.complete' '0644' 'root:root' 'replace' <<'CAPKIT_EOF'
	// c3VjY2Vzcwo=
	// CAPKIT_EOF
}

func ExampleCommands() {
	cfg := &cloudinit.Config{
		WriteFiles: []cloudinit.File{{Path: "/etc/motd", Content: []byte("hello\n"), Owner: "root:root", Permissions: 0o644}},
		RunCmd:     []cloudinit.Cmd{{Shell: "systemctl restart kubelet"}},
	}
	cmds, err := cloudinit.Commands(cfg, cloudinit.WithSentinel(""))
	if err != nil {
		panic(err)
	}
	for _, c := range cmds {
		// c.Argv[2] is a constant sh script; the values follow it as positional parameters.
		if len(c.Argv) > 3 && strings.HasPrefix(c.Argv[3], "capkit_") {
			fmt.Printf("%s: sh -c <script> %q stdin=%q system=%t\n", c.Module, c.Argv[3:], c.Stdin, c.System)
			continue
		}
		fmt.Printf("%s: %q system=%t\n", c.Module, c.Argv, c.System)
	}
	// Output:
	// write_files[0]: sh -c <script> ["capkit_write" "/etc/motd" "0644" "root:root" "replace"] stdin="hello\n" system=false
	// runcmd[0]: ["sh" "-c" "systemctl restart kubelet"] system=true
}

func ExampleEncodeUserData() {
	_, err := cloudinit.EncodeUserData([]byte("#cloud-config\nruncmd: [true]\n"), 16)
	fmt.Println(errors.Is(err, cloudinit.ErrTooLarge))
	enc, err := cloudinit.EncodeUserData([]byte("#cloud-config\nruncmd: [true]\n"), cloudinit.EC2UserDataLimit)
	fmt.Println(err, len(enc) > 0)
	enc, err = cloudinit.EncodeUserData([]byte("#cloud-config\nruncmd: [true]\n"), cloudinit.NovaUserDataLimit)
	fmt.Println(err, len(enc) <= cloudinit.NovaUserDataLimit)
	// Output:
	// true
	// <nil> true
	// <nil> true
}

// A malformed or unsafe value is ErrInvalid, a jinja variable the caller did not declare ErrUndeclaredVariable:
// both in strict and lenient mode, and a provider tells them apart with errors.Is (bad user data, not a bug).
func ExampleParse_errors() {
	_, err := cloudinit.Parse([]byte("#cloud-config\nwrite_files:\n- path: relative/file\n  content: x\n"), cloudinit.WithLenient())
	fmt.Println(errors.Is(err, cloudinit.ErrInvalid), err)
	_, err = cloudinit.Parse([]byte("## template: jinja\n#cloud-config\nruncmd: ['echo {{ ds.meta_data.region }}']\n"), cloudinit.WithLenient())
	fmt.Println(errors.Is(err, cloudinit.ErrUndeclaredVariable), err)
	// Output:
	// true cannot parse user data: write_files[0].path: "relative/file" is not an absolute path
	// true cannot parse user data: jinja line 2: undeclared jinja variable "ds.meta_data.region"
}

// Under WithRoot the script leaves files owned by whoever runs it, since owners name users of the running system;
// WithChown(true) applies them anyway (e.g. when the image's users match the host's).
func ExampleWithChown() {
	cfg, err := cloudinit.Parse([]byte("#cloud-config\nwrite_files:\n- {path: /etc/motd, owner: 'nobody:nogroup', content: hi}\n"))
	if err != nil {
		panic(err)
	}
	for _, opts := range [][]cloudinit.RenderOption{{cloudinit.WithRoot("/mnt/image")}, {cloudinit.WithRoot("/mnt/image"), cloudinit.WithChown(true)}} {
		script, err := cloudinit.Render(cfg, opts...)
		if err != nil {
			panic(err)
		}
		for _, line := range strings.Split(string(script), "\n") {
			if strings.HasPrefix(line, "capkit_chown()") {
				fmt.Println(line)
			}
		}
	}
	// Output:
	// capkit_chown() { :; }
	// capkit_chown() { chown -- "$1" "$2"; }
}

// A template's variables are the machine's own values; a key without dots serves every reference that ends
// with it.
func ExampleWithVariables() {
	data := []byte("## template: jinja\n#cloud-config\nhostname: '{{ ds.meta_data.local_hostname }}'\n" +
		"runcmd:\n- 'echo {{ v1.local_hostname }} {{ v1.instance_id }}'\n")
	machineName, instanceID := "cp-0", "i-0123"
	// snippet:start variables
	cfg, err := cloudinit.Parse(data, cloudinit.WithVariables(map[string]string{
		"local_hostname": machineName, // serves {{ ds.meta_data.local_hostname }} and {{ v1.local_hostname }}
		"instance_id":    instanceID,
	}))
	// snippet:end variables
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.Hostname.Hostname, cfg.RunCmd[0].Shell)
	// Output: cp-0 echo cp-0 i-0123
}
