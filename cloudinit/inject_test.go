package cloudinit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// canary returns a path that hostile values try to create, and a check that it was not.
func canary(t *testing.T) (string, func()) {
	p := filepath.Join(t.TempDir(), "canary")
	return p, func() {
		t.Helper()
		_, err := os.Stat(p)
		assert.True(t, os.IsNotExist(err), "canary %s exists: user data was executed", p)
	}
}

// hostile returns values that break naive shell quoting or heredocs.
func hostile(c string) []string {
	return []string{
		"$(touch " + c + ")",
		"`touch " + c + "`",
		"'; touch " + c + "; '",
		`"; touch ` + c + `; "`,
		`\'$(touch ` + c + `)\`,
		"a\ntouch " + c + "\n",
		"${IFS}touch${IFS}" + c,
		"!touch " + c,
	}
}

func TestInjectionContentIsWrittenByteExact(t *testing.T) {
	c, check := canary(t)
	contents := hostile(c)
	contents = append(contents,
		"a\n"+heredocDelimiter+"\ntouch "+c+"\n"+heredocDelimiter+"\n",
		"EOF\n'EOF'\n\"EOF\"\n",
		"nul\x00byte\x00",
		"\xff\xfe\x80 not UTF-8 \xc3\x28",
		strings.Repeat("very long line ", 1<<16)+"$(touch "+c+")",
		"no trailing newline",
		"",
		"crlf\r\nline\r\n",
	)
	cfg := &Config{}
	for i, content := range contents {
		cfg.WriteFiles = append(cfg.WriteFiles, File{Path: fmt.Sprintf("/content/%d", i), Content: []byte(content), Owner: "root:root", Permissions: 0o600, Defer: i%2 == 1})
	}
	sb := newSandbox(t)
	sb.run(t, cfg)
	files := tree(t, sb.root)
	for i, content := range contents {
		assert.Equal(t, content, files[fmt.Sprintf("/content/%d", i)].content, "content %d", i)
	}
	check()
}

func TestInjectionThroughYAML(t *testing.T) {
	c, check := canary(t)
	var b strings.Builder
	b.WriteString("#cloud-config\nwrite_files:\n")
	values := hostile(c)
	for i, v := range values {
		fmt.Fprintf(&b, "- path: %q\n  owner: root\n  content: %q\n", fmt.Sprintf("/yaml/%d-%s", i, strings.ReplaceAll(strings.ReplaceAll(v, "\n", ""), "/", "_")), v)
	}
	b.WriteString("runcmd:\n")
	for _, v := range values {
		fmt.Fprintf(&b, "- %q\n- [echo, %q]\n", v, v)
	}
	fmt.Fprintf(&b, "final_message: %q\n", values[0])
	cfg := mustParse(t, []byte(b.String()))
	sb := newSandbox(t)
	out := sb.run(t, cfg)
	assert.Contains(t, string(out), values[0]+"\n", "the final message is printed as it is")
	files := tree(t, sb.root)
	for _, f := range cfg.WriteFiles {
		assert.Equal(t, string(f.Content), files[f.Path].content, "%q", f.Path)
	}
	var want [][]string
	for _, v := range values {
		want = append(want, []string{"sh", "-c", v}, []string{"echo", v})
	}
	assert.Equal(t, want, sb.recorded(t), "commands reach the runner with their exact arguments")
	check()
}

func TestInjectionPathsAreLiteral(t *testing.T) {
	c, check := canary(t)
	paths := []string{
		"/odd/$(touch " + strings.ReplaceAll(c, "/", "_") + ")",
		"/odd/`touch x`",
		"/odd/it's",
		`/odd/a"b`,
		`/odd/back\slash`,
		"/odd/with space",
		"/odd/-rf",
		"/odd/*",
		"/odd/~root",
		"/odd/{a,b}",
		"/odd/é",
		"/odd/;&|<>",
		"/odd/" + strings.Repeat("n", 200),
	}
	cfg := &Config{}
	for i, p := range paths {
		cfg.WriteFiles = append(cfg.WriteFiles, File{Path: p, Content: []byte(fmt.Sprint(i)), Owner: "root", Permissions: 0o640})
	}
	cfg.Users = []User{{Name: "capi", HomeDir: "/home/$(touch x)", SSHAuthorizedKeys: []string{"ssh-ed25519 AAAA $(touch " + c + ")"}}}
	sb := newSandbox(t)
	sb.run(t, cfg)
	files := tree(t, sb.root)
	for i, p := range paths {
		assert.Equal(t, fmt.Sprint(i), files[p].content, "%q", p)
	}
	assert.Equal(t, "ssh-ed25519 AAAA $(touch "+c+")\n", files["/home/$(touch x)/.ssh/authorized_keys"].content)
	assert.Len(t, files, len(paths)+8, "no other file: /odd, /home, the home, .ssh, authorized_keys, /run, /run/cluster-api, the sentinel")
	check()
}

func TestInjectionInvalidValuesAreRejected(t *testing.T) {
	file := func(f File) *Config {
		if f.Path == "" {
			f.Path = "/ok"
		}
		if f.Owner == "" {
			f.Owner = "root"
		}
		return &Config{WriteFiles: []File{f}}
	}
	tests := []struct {
		name string
		cfg  *Config
		want string
	}{
		{"path with a line break", file(File{Path: "/a\n/b"}), `write_files[0].path: "/a\n/b" holds a control character or is not UTF-8`},
		{"path with NUL", file(File{Path: "/a\x00b"}), `write_files[0].path: "/a\x00b" holds a control character`},
		{"path not UTF-8", file(File{Path: "/a\xff"}), `write_files[0].path: "/a\xff" holds a control character or is not UTF-8`},
		{"path relative", file(File{Path: "a"}), `write_files[0].path: "a" is not an absolute path`},
		{"path with ..", file(File{Path: "/a/../../etc/passwd"}), `write_files[0].path: "/a/../../etc/passwd" is not a clean path`},
		{"path is the root", file(File{Path: "/"}), `write_files[0].path: path is the root folder`},
		{"path too long", file(File{Path: "/" + strings.Repeat("a", 5000)}), `write_files[0].path: path is longer than 4096 bytes`},
		{"owner substitution", file(File{Owner: "$(touch x)"}), `write_files[0].owner: "$(touch x)" is not user or user:group`},
		{"owner backticks", file(File{Owner: "`id`"}), "write_files[0].owner: \"`id`\" is not user or user:group"},
		{"owner quote", file(File{Owner: "root'"}), `write_files[0].owner: "root'" is not user or user:group`},
		{"owner two colons", file(File{Owner: "a:b:c"}), `write_files[0].owner: "a:b:c" is not user or user:group`},
		{"owner space", file(File{Owner: "root :root"}), `write_files[0].owner: "root :root" is not user or user:group`},
		{"mode too large", file(File{Permissions: 0o17777}), `write_files[0].permissions: 017777 is larger than 07777`},
		{"argv NUL", &Config{RunCmd: []Cmd{{Argv: []string{"echo", "a\x00"}}}}, `runcmd[0][1]: argument holds a NUL byte`},
		{"shell NUL", &Config{BootCmd: []Cmd{{Shell: "echo\x00"}}}, `bootcmd[0]: command holds a NUL byte`},
		{"user name", &Config{Users: []User{{Name: "a;b"}}}, `users[0].name: "a;b" is not a valid user or group name`},
		{"gecos colon", &Config{Users: []User{{Name: "a", Gecos: "x:0:0"}}}, `users[0].gecos: "x:0:0" holds a colon`},
		{"hostname", &Config{Hostname: Hostname{Hostname: "$(reboot)"}}, `hostname: "$(reboot)" is not a valid host name`},
		{"mount option", &Config{Mounts: []Mount{{Spec: "/dev/a", File: "/m", Type: "ext4", Options: "rw\n/dev/b /x", Freq: "0", Passno: "0"}}}, `mounts[0][3]: "rw\n/dev/b /x" is not a valid fstab field`},
		{"final message NUL", &Config{FinalMessage: "a\x00"}, `final_message: holds a NUL byte`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(tt.cfg)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.ErrorContains(t, err, tt.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestRenderOptionsAreValidated(t *testing.T) {
	cfg := &Config{}
	_, err := Render(cfg, WithRoot("relative/dir"))
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = Render(cfg, WithSentinel("run/x"))
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = Render(cfg, WithDryRun("/tmp/log\nx"))
	assert.ErrorIs(t, err, ErrInvalid)
}

func TestInjectionCommandArgumentsReachTheRunnerIntact(t *testing.T) {
	c, check := canary(t)
	args := append(hostile(c), "\xff\xfe not UTF-8", "tab\there", strings.Repeat("long ", 20000), "", "-", "--", "*", "~")
	cfg := &Config{
		BootCmd: []Cmd{{Shell: "touch " + c}},
		RunCmd:  []Cmd{{Argv: append([]string{"/usr/bin/printf"}, args...)}, {Shell: strings.Join(args, "\n")}},
	}
	sb := newSandbox(t)
	sb.run(t, cfg)
	assert.Equal(t, [][]string{
		{"sh", "-c", "touch " + c},
		append([]string{"/usr/bin/printf"}, args...),
		{"sh", "-c", strings.Join(args, "\n")},
	}, sb.recorded(t))
	check()
}
