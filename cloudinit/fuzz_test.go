package cloudinit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

var fuzzVars = map[string]string{"local_hostname": "node-0", "hostname": "node-0", "instance_id": "i-0"}

// fuzzMaxSize is the WithMaxSize of FuzzParse, small enough that the fuzzer reaches the bounds.
const fuzzMaxSize = 64 << 10

// checkError checks what every error of Parse and Render holds: a sentinel and one line.
func checkError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrUndeclaredVariable) && !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error wraps no sentinel: %v", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error is not one line: %q", err)
	}
}

// maxScript bounds the script rendered from what a decoder counted: the fixed header and helpers,
// then per visited YAML node (each step comes from one) its module comment, command and quoting,
// and per byte of decoded value (file contents as base64, arguments quoted, names repeated in a
// few steps) a few bytes.
func maxScript(d *decoder) int {
	return 64<<10 + 512*d.visited + 32*(d.maxValues-d.budget) + 8*d.maxDoc
}

// FuzzParse checks that Parse never panics, that its errors wrap a sentinel and hold one line,
// and that whatever it accepts renders to a script in which every value is a quoted word (checked
// in-process with mvdan.cc/sh, cheaper than bash or shellcheck), whose size is bounded by what the
// decoder counted (every byte of output comes from a bounded input), and that Commands accepts too.
// The corpus is in testdata/fuzz/FuzzParse, with a file for each hostile input of issue 22.
func FuzzParse(f *testing.F) {
	for _, name := range samples {
		f.Add(readTestdata(f, name+".yaml"))
	}
	f.Add([]byte("#!/bin/sh\necho hi\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lenient := range []bool{false, true} {
			opts := []ParseOption{WithVariables(fuzzVars), WithMaxSize(fuzzMaxSize)}
			if lenient {
				opts = append(opts, WithLenient())
			}
			cfg, d, err := parse(data, opts)
			if err != nil {
				checkError(t, err)
				continue
			}
			script, err := Render(cfg, WithRoot("/sandbox"))
			if err != nil {
				t.Fatalf("Parse accepted user data that Render rejects: %v", err)
			}
			if len(script) > maxScript(d) {
				t.Fatalf("script of %d bytes from %d bytes of user data, more than the bound %d", len(script), len(data), maxScript(d))
			}
			if err := checkQuoted(script); err != nil {
				t.Fatalf("unquoted value in the script: %v", err)
			}
			if _, err := Commands(cfg); err != nil {
				t.Fatalf("Parse accepted user data that Commands rejects: %v", err)
			}
		}
	})
}

// FuzzRender checks that any path, content, owner, mode, command and argument either is rejected as
// invalid or renders to a script in which every value is a quoted word; and that any value of a jinja
// variable either is refused (with an error that does not show it) or lands as data where the
// variable stands, in one quoted word of the script, leaving the structure of the Config as it is
// for a benign value. The corpus is in testdata/fuzz/FuzzRender.
func FuzzRender(f *testing.F) {
	f.Add("/etc/kubernetes/pki/ca.crt", "-----BEGIN CERTIFICATE-----\n", "root:root", uint32(0o640), "kubeadm init && echo ok", "it's", "capi", "node-0")
	f.Add("/x/$(touch c)", "a\nCAPKIT_EOF\n", "root", uint32(0o4755), "echo `id`", "\xff\n'\"\\", "", `n1"], ["touch", "/tmp/x`)
	base := map[string]*Config{}
	for _, tmpl := range []string{scalarsTemplate, shellTemplate, shellArgvTemplate} {
		cfg, err := Parse([]byte(tmpl), WithVariables(map[string]string{"local_hostname": "node-0"}))
		if err != nil {
			f.Fatal(err)
		}
		base[tmpl] = cfg
	}
	f.Fuzz(func(t *testing.T, path, content, owner string, mode uint32, shell, arg, name, value string) {
		cfg := &Config{
			WriteFiles:   []File{{Path: path, Content: []byte(content), Owner: owner, Permissions: mode, Append: mode%2 == 0}},
			RunCmd:       []Cmd{{Argv: []string{"echo", arg}}},
			FinalMessage: arg,
		}
		if shell != "" {
			cfg.BootCmd = []Cmd{{Shell: shell}}
		}
		if name != "" {
			cfg.Users = []User{{Name: name, Gecos: arg, Sudo: []string{arg}, SSHAuthorizedKeys: []string{arg}, HomeDir: path}}
		}
		script, err := Render(cfg, WithRoot("/sandbox"), WithDryRun("/sandbox.log"))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
		} else if err := checkQuoted(script); err != nil {
			t.Fatalf("unquoted value in the script: %v", err)
		}
		for tmpl, want := range base {
			checkJinjaValue(t, tmpl, want, value)
		}
	})
}

// checkJinjaValue parses a template with value for local_hostname: a refusal wraps a sentinel and does
// not show a value longer than any fixed text of an error; an accepted value gives the Config of
// node-0 with value in its place, whose script holds the last word of its last command (where the
// value is) as one quoted word.
func checkJinjaValue(t *testing.T, tmpl string, want *Config, value string) {
	t.Helper()
	cfg, err := Parse([]byte(tmpl), WithVariables(map[string]string{"local_hostname": value}))
	if err != nil {
		checkError(t, err)
		if len(value) > 160 && strings.Contains(err.Error(), value) {
			t.Fatalf("the error shows the value: %v", err)
		}
		return
	}
	if !reflect.DeepEqual(cfg, replaceStrings(want, "node-0", value)) {
		t.Fatalf("value %q changed the structure of the Config", value)
	}
	script, err := Render(cfg)
	if err != nil {
		t.Fatalf("a Config with a substituted value does not render: %v", err)
	}
	if err := checkQuoted(script); err != nil {
		t.Fatalf("unquoted value in the script: %v", err)
	}
	cmds := append(append([]Cmd(nil), cfg.BootCmd...), cfg.RunCmd...)
	c := cmds[len(cmds)-1]
	words := c.Argv
	if c.Argv == nil {
		words = []string{c.Shell}
	}
	q, err := quote(words[len(words)-1])
	if err != nil || !strings.Contains(string(script), " "+q+"\n") {
		t.Fatalf("the argument that holds the value is not one quoted word: %v", err)
	}
}
