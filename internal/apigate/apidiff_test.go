package apigate_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is capkit's checkout: go test runs in internal/apigate.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return dir
}

var apidiffVersionRE = regexp.MustCompile(`(?m)^GO_APIDIFF_VERSION[ \t]*:=[ \t]*(\S+)[ \t]*$`)

// goAPIDiff returns the pinned go-apidiff: $CAPKIT_GO_APIDIFF, or bin/go-apidiff-VERSION with the Makefile's
// GO_APIDIFF_VERSION. It fails the test, naming the make target, when the binary is missing.
func goAPIDiff(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CAPKIT_GO_APIDIFF"); p != "" {
		_, err := os.Stat(p)
		require.NoError(t, err, "CAPKIT_GO_APIDIFF names a go-apidiff that does not exist: run 'make %s'", p)
		return p
	}
	mk, err := os.ReadFile(filepath.Join(root(t), "Makefile"))
	require.NoError(t, err)
	m := apidiffVersionRE.FindSubmatch(mk)
	require.NotNil(t, m, "the Makefile has no GO_APIDIFF_VERSION := line (the pinned go-apidiff of make verify)")
	p := filepath.Join(root(t), "bin", "go-apidiff-"+string(m[1]))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("go-apidiff %s is not installed: run 'make %s' (make test installs it before the tests)", m[1], p)
	}
	return p
}

// gitEnv makes git in the tests independent of the machine's git configuration.
var gitEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
	"GIT_AUTHOR_NAME=apigate", "GIT_AUTHOR_EMAIL=apigate@capkit.invalid",
	"GIT_COMMITTER_NAME=apigate", "GIT_COMMITTER_EMAIL=apigate@capkit.invalid",
}

// repo is a throwaway git repository holding a tiny Go module.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not installed (apt-get install git): %v", err)
	}
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "git %s:\n%s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

func (r *repo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(path))
	require.NoError(r.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(r.t, os.WriteFile(p, []byte(content), 0o644))
}

func (r *repo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// state is everything of the repository that the gate must leave as it was: HEAD, refs, the index file and every
// file of the working tree.
func (r *repo) state() string {
	r.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "HEAD %s\nrefs:\n%s\n", r.git("rev-parse", "HEAD"), r.git("for-each-ref"))
	index, err := os.ReadFile(filepath.Join(r.dir, ".git", "index"))
	require.NoError(r.t, err)
	fmt.Fprintf(&b, "index %x\n", sha256.Sum256(index))
	var files []string
	require.NoError(r.t, filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files = append(files, fmt.Sprintf("%s %x", p, sha256.Sum256(data)))
		}
		return nil
	}))
	sort.Strings(files)
	b.WriteString(strings.Join(files, "\n"))
	return b.String()
}

// gate runs hack/apidiff.sh on r with its own work folder and returns its exit code and output. It checks that the
// run left r as it was.
func gate(t *testing.T, r *repo, apidiff string) (int, string) {
	t.Helper()
	before := r.state()
	cmd := exec.Command("bash", filepath.Join(root(t), "hack", "apidiff.sh"), r.dir)
	cmd.Env = append(os.Environ(), gitEnv...)
	cmd.Env = append(cmd.Env, "GO_APIDIFF="+apidiff, "APIDIFF_WORKDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "cannot run hack/apidiff.sh: %v\n%s", err, out)
		code = exit.ExitCode()
	}
	assert.Equal(t, before, r.state(), "hack/apidiff.sh changed the repository it checked")
	return code, string(out)
}

// The throwaway module: package widget is its API; examples/demo is outside the gate.
const (
	goMod   = "module example.com/gated\n\ngo 1.26.0\n"
	widget1 = `// Package widget is the throwaway module's API.
package widget

// New returns a widget.
func New() string { return "widget" }

// Legacy is the exported function that the branch removes.
func Legacy() string { return "legacy" }
`
	widget2 = `// Package widget is the throwaway module's API.
package widget

// New returns a widget.
func New() string { return "widget" }

// Legacy is the exported function that the branch removes.
func Legacy() string { return "legacy" }

// Extra came after the release: a compatible change.
func Extra() string { return "extra" }
`
	widget3 = `// Package widget is the throwaway module's API.
package widget

// New returns a widget.
func New() string { return "widget" }

// Extra came after the release: a compatible change.
func Extra() string { return "extra" }
`
	demo1 = "// Package demo is an example, outside the gate.\npackage demo\n\n// Run runs the demo.\nfunc Run() {}\n"
	demo2 = "// Package demo is an example, outside the gate.\npackage demo\n"
)

// changelog returns a CHANGELOG.md: the unreleased section with breaking and feature entries, then the releases.
func changelog(breaking, features string, releases ...string) string {
	var b strings.Builder
	b.WriteString("# Changelog\n\nThe gate's rules would be here.\n\n## Unreleased\n\n### ⚠ Breaking changes\n\n")
	b.WriteString(breaking)
	b.WriteString("\n### ✨ Features\n\n")
	b.WriteString(features)
	b.WriteString("\n### 🐛 Fixes\n\n")
	for _, r := range releases {
		fmt.Fprintf(&b, "\n## %s\n\n- widget: New and Legacy.\n", r)
	}
	return b.String()
}

// TestGateFailsOnAnUnnamedRemovalAndPassesWithTheEntry is the "done when": on a branch that removes an
// exported function, the gate fails naming the function until CHANGELOG.md's breaking changes name it.
func TestGateFailsOnAnUnnamedRemovalAndPassesWithTheEntry(t *testing.T) {
	apidiff := goAPIDiff(t)
	r := newRepo(t)
	r.write("go.mod", goMod)
	r.write("widget/widget.go", widget1)
	r.write("examples/demo/demo.go", demo1)
	r.write("CHANGELOG.md", changelog("", "- widget: New and Legacy.\n"))
	r.commit("start")

	code, out := gate(t, r, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "names no release")

	// The release: the unreleased entries become "## v0.1.0". Not committed yet: nothing to compare with.
	r.write("CHANGELOG.md", changelog("", "", "v0.1.0"))
	code, out = gate(t, r, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "v0.1.0 is not committed yet")

	release := r.commit("release v0.1.0")
	code, out = gate(t, r, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "HEAD is the release commit of v0.1.0")

	// A compatible change after the release, then a branch that removes Legacy (and the example's Run).
	r.write("widget/widget.go", widget2)
	r.write("CHANGELOG.md", changelog("", "- widget: Extra.\n", "v0.1.0"))
	r.commit("widget: Extra")
	code, out = gate(t, r, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "no incompatible change")

	r.git("checkout", "-q", "-b", "remove-legacy")
	r.write("widget/widget.go", widget3)
	r.write("examples/demo/demo.go", demo2)
	r.commit("widget: remove Legacy")
	code, out = gate(t, r, apidiff)
	require.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL: incompatible changes since v0.1.0 ("+release[:7])
	assert.Contains(t, out, "`widget.Legacy` (widget: Legacy: removed)")
	assert.NotContains(t, out, "demo", "examples/ is outside the gate")

	// An entry under features does not name a breaking change.
	r.write("CHANGELOG.md", changelog("", "- widget: Extra.\n- `widget.Legacy` removed.\n", "v0.1.0"))
	code, out = gate(t, r, apidiff)
	require.Equal(t, 1, code, out)
	assert.Contains(t, out, "`widget.Legacy`")

	// The entry under breaking changes, in the working tree (not committed): the gate passes.
	r.write("CHANGELOG.md", changelog("- ⚠ `widget.Legacy` removed: call `widget.New`.\n", "- widget: Extra.\n", "v0.1.0"))
	code, out = gate(t, r, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "named under \"### ⚠ Breaking changes\"")
	assert.Contains(t, out, "`widget.Legacy` (widget: Legacy: removed)")
	assert.Contains(t, out, "pass: every incompatible change since v0.1.0")
}

// TestGateNamesMethodsWithoutReceiverSyntaxAndWholePackages checks the naming rule for a method of a generic type
// (go-apidiff prints "(*Box[T]).Open") and the PKG.* form.
func TestGateNamesMethodsWithoutReceiverSyntaxAndWholePackages(t *testing.T) {
	apidiff := goAPIDiff(t)
	r := newRepo(t)
	r.write("go.mod", goMod)
	r.write("box/box.go", "// Package box has a generic type.\npackage box\n\n// Box holds a T.\ntype Box[T any] struct{ v T }\n\n// Open returns the T.\nfunc (b *Box[T]) Open() T { return b.v }\n")
	r.write("gone/gone.go", "// Package gone is removed after the release.\npackage gone\n\n// A is a function.\nfunc A() {}\n\n// B is a function.\nfunc B() {}\n")
	r.write("CHANGELOG.md", changelog("", "", "v0.1.0"))
	r.commit("release v0.1.0")

	require.NoError(t, os.RemoveAll(filepath.Join(r.dir, "gone")))
	r.write("box/box.go", "// Package box has a generic type.\npackage box\n\n// Box holds a T.\ntype Box[T any] struct{ v T }\n")
	code, out := gate(t, r, apidiff)
	require.Equal(t, 1, code, out)
	assert.Contains(t, out, "`box.Box.Open` (box: (*Box[T]).Open: removed)")
	assert.Contains(t, out, "`gone.A` (gone: A: removed)")
	assert.Contains(t, out, "`gone.B` (gone: B: removed)")

	r.write("CHANGELOG.md", changelog("- ⚠ `example.com/gated/box.(*Box[T]).Open` removed.\n- ⚠ `gone.*`: package removed.\n", "", "v0.1.0"))
	code, out = gate(t, r, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "pass: every incompatible change since v0.1.0")
}

// TestChangelogShape checks capkit's CHANGELOG.md as the gate reads it: "## Unreleased" first, with the breaking
// changes, features and fixes parts, then the last release.
func TestChangelogShape(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(t), "CHANGELOG.md"))
	require.NoError(t, err)
	var h2, h3 []string
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			h2 = append(h2, line)
		case strings.HasPrefix(line, "### ") && len(h2) == 1:
			h3 = append(h3, line)
		}
	}
	require.GreaterOrEqual(t, len(h2), 2, "want ## Unreleased and at least one release")
	assert.Equal(t, "## Unreleased", h2[0])
	assert.Equal(t, []string{"### ⚠ Breaking changes", "### ✨ Features", "### 🐛 Fixes"}, h3)
	assert.Regexp(t, `^## v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\s.*)?$`, h2[1], "the last release's heading, as hack/apidiff.sh reads it")
}
