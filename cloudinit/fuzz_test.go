package cloudinit

import (
	"errors"
	"strings"
	"testing"
)

var fuzzVars = map[string]string{"local_hostname": "node-0", "hostname": "node-0", "instance_id": "i-0"}

// FuzzParse checks that Parse never panics, that its errors wrap a sentinel and hold one
// line, and that whatever it accepts renders to a script that bash -n accepts and in which
// every value is a quoted word. The corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, name := range samples {
		f.Add(readTestdata(f, name+".yaml"))
	}
	f.Add([]byte("#!/bin/sh\necho hi\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lenient := range []bool{false, true} {
			opts := []ParseOption{WithVariables(fuzzVars), WithMaxSize(1 << 20)}
			if lenient {
				opts = append(opts, WithLenient())
			}
			cfg, err := Parse(data, opts...)
			if err != nil {
				if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrUndeclaredVariable) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("error wraps no sentinel: %v", err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error is not one line: %q", err)
				}
				continue
			}
			script, err := Render(cfg, WithRoot("/sandbox"))
			if err != nil {
				t.Fatalf("Parse accepted user data that Render rejects: %v", err)
			}
			if err := checkQuoted(script); err != nil {
				t.Fatalf("unquoted value in the script: %v", err)
			}
			bashN(t, script)
			if _, err := Commands(cfg); err != nil {
				t.Fatalf("Parse accepted user data that Commands rejects: %v", err)
			}
		}
	})
}

// FuzzRender checks that any path, content, owner, mode, command and argument either is
// rejected as invalid or renders to a script that bash -n accepts and in which every value
// is a quoted word. The corpus is in testdata/fuzz/FuzzRender.
func FuzzRender(f *testing.F) {
	f.Add("/etc/kubernetes/pki/ca.crt", "-----BEGIN CERTIFICATE-----\n", "root:root", uint32(0o640), "kubeadm init && echo ok", "it's", "capi")
	f.Add("/x/$(touch c)", "a\nCAPKIT_EOF\n", "root", uint32(0o4755), "echo `id`", "\xff\n'\"\\", "")
	f.Fuzz(func(t *testing.T, path, content, owner string, mode uint32, shell, arg, name string) {
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
			return
		}
		if err := checkQuoted(script); err != nil {
			t.Fatalf("unquoted value in the script: %v", err)
		}
		bashN(t, script)
	})
}
