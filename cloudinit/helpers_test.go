package cloudinit

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/shell"
	"mvdan.cc/sh/v3/syntax"
)

// testVars are the jinja variables of the testdata samples.
var testVars = map[string]string{"local_hostname": "cp-0", "hostname": "cp-0", "instance_id": "i-0123456789"}

// tool returns the path of a program the tests need. A missing tool fails the test: run
// make test, which installs shellcheck.
func tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed: run `make test`, which installs it (or apt-get install %s)", name, name)
	}
	return p
}

// checkScript runs bash -n and shellcheck on a rendered script and checks in-process that
// every value in it is a quoted word.
func checkScript(t *testing.T, script []byte) {
	t.Helper()
	bashN(t, script)
	f := filepath.Join(t.TempDir(), "script.sh")
	require.NoError(t, os.WriteFile(f, script, 0o600))
	out, err := exec.Command(tool(t, "shellcheck"), "--shell=bash", "--severity=style", f).CombinedOutput()
	require.NoError(t, err, "shellcheck:\n%s", out)
	require.NoError(t, checkQuoted(script))
}

// bashN checks the syntax of a script with bash -n.
func bashN(t testing.TB, script []byte) {
	t.Helper()
	cmd := exec.Command(tool(t, "bash"), "-n")
	cmd.Stdin = bytes.NewReader(script)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "bash -n: %s", out)
}

// stepCommands are the only commands a rendered script calls outside its functions.
var stepCommands = map[string]bool{
	"set": true, "umask": true, "printf": true, "capkit_run": true,
	"capkit_write": true, "capkit_mkdir": true, "capkit_fstab": true, "capkit_hosts_line": true, "capkit_ntp": true,
	"capkit_mountpoint": true,
}

// checkQuoted parses a script with mvdan.cc/sh and checks that outside the function
// definitions every statement is a call of a known command whose arguments are quoted
// literals (no expansion, substitution or glob), and that every heredoc delimiter is quoted.
func checkQuoted(script []byte) error {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(script), "script")
	if err != nil {
		return err
	}
	for _, st := range file.Stmts {
		if _, ok := st.Cmd.(*syntax.FuncDecl); ok {
			continue
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || st.Negated || st.Background || len(call.Assigns) > 0 || len(call.Args) == 0 {
			return fmt.Errorf("line %d: not a plain command", st.Pos().Line())
		}
		name := call.Args[0].Lit()
		if !stepCommands[name] {
			return fmt.Errorf("line %d: unexpected command %q", st.Pos().Line(), name)
		}
		args := call.Args[1:]
		if name == "set" || name == "umask" {
			args = nil
		}
		if name == "capkit_run" && len(args) > 0 && strings.HasPrefix(args[0].Lit(), "capkit_") {
			args = args[1:] // a helper function run (or recorded) by capkit_run
		}
		for _, w := range args {
			if !quotedLiteral(w) {
				return fmt.Errorf("line %d: argument is not a quoted literal", w.Pos().Line())
			}
		}
		for _, r := range st.Redirs {
			if r.Op != syntax.Hdoc || !quotedLiteral(r.Word) {
				return fmt.Errorf("line %d: redirection is not a quoted heredoc", r.Pos().Line())
			}
		}
	}
	return nil
}

// quotedLiteral reports whether a word is made only of single-quoted, $'...' or
// double-quoted literal parts.
func quotedLiteral(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return len(w.Parts) > 0
}

// sandbox is a temporary root and dry-run log for running a rendered script.
type sandbox struct {
	root string
	log  string
}

func newSandbox(t *testing.T) sandbox {
	dir := t.TempDir()
	s := sandbox{root: filepath.Join(dir, "root"), log: filepath.Join(dir, "dry-run.log")}
	require.NoError(t, os.Mkdir(s.root, 0o755))
	return s
}

// run renders cfg under the sandbox root in dry-run mode, so that nothing outside the
// sandbox changes, checks the script and runs it with bash. It is the only way the tests
// run a script.
func (s sandbox) run(t *testing.T, cfg *Config, opts ...RenderOption) []byte {
	t.Helper()
	opts = append(opts, WithRoot(s.root), WithDryRun(s.log))
	script, err := Render(cfg, opts...)
	require.NoError(t, err)
	checkScript(t, script)
	f := filepath.Join(filepath.Dir(s.root), "script.sh")
	require.NoError(t, os.WriteFile(f, script, 0o600))
	cmd := exec.Command(tool(t, "bash"), f)
	cmd.Dir = filepath.Dir(s.root)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "script failed: %s", out)
	return out
}

// recorded returns the commands of the dry-run log, each split into its words.
func (s sandbox) recorded(t *testing.T) [][]string {
	t.Helper()
	data, err := os.ReadFile(s.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out [][]string
	// A quoted word never holds a raw line break: bash's %q writes $'\n'.
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		words, err := shell.Fields(line, func(string) string { return "" })
		require.NoError(t, err, "dry-run line %q", line)
		out = append(out, words)
	}
	return out
}

// entry is a file or folder found under a root.
type entry struct {
	mode    fs.FileMode
	content string
}

// tree lists every file and folder under root, by path relative to root.
func tree(t *testing.T, root string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{mode: info.Mode()}
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.content = string(b)
		}
		rel, _ := filepath.Rel(root, p)
		out["/"+rel] = e
		return nil
	})
	require.NoError(t, err)
	return out
}

func mustParse(t testing.TB, data []byte, opts ...ParseOption) *Config {
	t.Helper()
	cfg, err := Parse(data, opts...)
	require.NoError(t, err)
	return cfg
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}
