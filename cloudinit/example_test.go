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
	// Output:
	// true
	// <nil> true
}
