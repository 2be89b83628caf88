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

var apidiffVersionRE = regexp.MustCompile(`(?m)^APIDIFF_VERSION[ \t]*:=[ \t]*(\S+)[ \t]*$`)

// apidiffTool returns the pinned golang.org/x/exp/cmd/apidiff: $CAPKIT_APIDIFF, or bin/apidiff-VERSION with the
// Makefile's APIDIFF_VERSION. It fails the test, naming the make target, when the binary is missing.
func apidiffTool(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CAPKIT_APIDIFF"); p != "" {
		_, err := os.Stat(p)
		require.NoError(t, err, "CAPKIT_APIDIFF names an apidiff that does not exist: run 'make %s'", p)
		return p
	}
	mk, err := os.ReadFile(filepath.Join(root(t), "Makefile"))
	require.NoError(t, err)
	m := apidiffVersionRE.FindSubmatch(mk)
	require.NotNil(t, m, "the Makefile has no APIDIFF_VERSION := line (the pinned apidiff of make verify)")
	p := filepath.Join(root(t), "bin", "apidiff-"+string(m[1]))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("apidiff %s is not installed: run 'make %s' (make test installs it before the tests)", m[1], p)
	}
	return p
}

// module is a throwaway Go module in a temporary folder, without git: the gate reads no history.
type module struct {
	t   *testing.T
	dir string
}

func newModule(t *testing.T) *module {
	t.Helper()
	return &module{t: t, dir: t.TempDir()}
}

func (m *module) write(path, content string) {
	m.t.Helper()
	p := filepath.Join(m.dir, filepath.FromSlash(path))
	require.NoError(m.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(m.t, os.WriteFile(p, []byte(content), 0o644))
}

// state is every file of the module with its hash: what the gate must leave as it was.
func (m *module) state() string {
	m.t.Helper()
	var files []string
	require.NoError(m.t, filepath.WalkDir(m.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, fmt.Sprintf("%s %x", p, sha256.Sum256(data)))
		return nil
	}))
	sort.Strings(files)
	return strings.Join(files, "\n")
}

// run runs hack/apidiff.sh with args on m and returns its exit code and output.
func run(t *testing.T, m *module, apidiff string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(root(t), "hack", "apidiff.sh")}, append(args, m.dir)...)...)
	cmd.Env = append(os.Environ(), "APIDIFF="+apidiff)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "cannot run hack/apidiff.sh: %v\n%s", err, out)
		code = exit.ExitCode()
	}
	return code, string(out)
}

// gate runs the gate on m and checks that it left every file as it was.
func gate(t *testing.T, m *module, apidiff string) (int, string) {
	t.Helper()
	before := m.state()
	code, out := run(t, m, apidiff)
	assert.Equal(t, before, m.state(), "hack/apidiff.sh changed the module it checked")
	return code, out
}

// release writes the release's export file, as the release commit does with make api-baseline.
func release(t *testing.T, m *module, apidiff, version string) {
	t.Helper()
	code, out := run(t, m, apidiff, "--write")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "wrote hack/api/"+version+".export")
	_, err := os.Stat(filepath.Join(m.dir, "hack", "api", version+".export"))
	require.NoError(t, err)
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

// TestGateFailsOnAnUnnamedRemovalAndPassesWithTheEntry is the gate's purpose: on a tree that removes an exported
// function, the gate fails naming the function until CHANGELOG.md's breaking changes name it. The module has no git
// repository at all, as a shallow clone has no history: the release's API is the committed export file.
func TestGateFailsOnAnUnnamedRemovalAndPassesWithTheEntry(t *testing.T) {
	apidiff := apidiffTool(t)
	m := newModule(t)
	m.write("go.mod", goMod)
	m.write("widget/widget.go", widget1)
	m.write("examples/demo/demo.go", demo1)
	m.write("internal/hidden/hidden.go", demo1)
	m.write("CHANGELOG.md", changelog("", "- widget: New and Legacy.\n"))

	code, out := gate(t, m, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "names no release")

	// The release heading without its export file: the gate cannot compare and says which command writes it.
	m.write("CHANGELOG.md", changelog("", "", "v0.1.0"))
	code, out = gate(t, m, apidiff)
	require.Equal(t, 2, code, out)
	assert.Contains(t, out, "hack/api/v0.1.0.export is missing")
	assert.Contains(t, out, "make api-baseline")

	release(t, m, apidiff, "v0.1.0")
	code, out = gate(t, m, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "no incompatible change")

	// A compatible change after the release, then a tree that removes Legacy (and the example's and the internal
	// package's Run).
	m.write("widget/widget.go", widget2)
	m.write("CHANGELOG.md", changelog("", "- widget: Extra.\n", "v0.1.0"))
	code, out = gate(t, m, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "no incompatible change")

	m.write("widget/widget.go", widget3)
	m.write("examples/demo/demo.go", demo2)
	m.write("internal/hidden/hidden.go", demo2)
	code, out = gate(t, m, apidiff)
	require.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL: incompatible changes since v0.1.0")
	assert.Contains(t, out, "`widget.Legacy` (widget: Legacy: removed)")
	assert.NotContains(t, out, "demo", "examples/ is outside the gate")
	assert.NotContains(t, out, "hidden", "internal/ is outside the gate")

	// An entry under features does not name a breaking change.
	m.write("CHANGELOG.md", changelog("", "- widget: Extra.\n- `widget.Legacy` removed.\n", "v0.1.0"))
	code, out = gate(t, m, apidiff)
	require.Equal(t, 1, code, out)
	assert.Contains(t, out, "`widget.Legacy`")

	// The entry under breaking changes: the gate passes.
	m.write("CHANGELOG.md", changelog("- ⚠ `widget.Legacy` removed: call `widget.New`.\n", "- widget: Extra.\n", "v0.1.0"))
	code, out = gate(t, m, apidiff)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "named under \"### ⚠ Breaking changes\"")
	assert.Contains(t, out, "`widget.Legacy` (widget: Legacy: removed)")
	assert.Contains(t, out, "pass: every incompatible change since v0.1.0")
}

// TestGateNamesMethodsWithoutReceiverSyntaxAndWholePackages checks the naming rule for a method of a generic type
// (apidiff prints "(*Box[T]).Open") and the PKG.* form for a removed package.
func TestGateNamesMethodsWithoutReceiverSyntaxAndWholePackages(t *testing.T) {
	apidiff := apidiffTool(t)
	m := newModule(t)
	m.write("go.mod", goMod)
	m.write("box/box.go", "// Package box has a generic type.\npackage box\n\n// Box holds a T.\ntype Box[T any] struct{ v T }\n\n// Open returns the T.\nfunc (b *Box[T]) Open() T { return b.v }\n")
	m.write("gone/gone.go", "// Package gone is removed after the release.\npackage gone\n\n// A is a function.\nfunc A() {}\n")
	m.write("CHANGELOG.md", changelog("", "", "v0.1.0"))
	release(t, m, apidiff, "v0.1.0")

	require.NoError(t, os.RemoveAll(filepath.Join(m.dir, "gone")))
	m.write("box/box.go", "// Package box has a generic type.\npackage box\n\n// Box holds a T.\ntype Box[T any] struct{ v T }\n")
	code, out := gate(t, m, apidiff)
	require.Equal(t, 1, code, out)
	assert.Contains(t, out, "`box.Box.Open` (box: (*Box[T]).Open: removed)")
	assert.Contains(t, out, "`gone.*` (gone: package example.com/gated/gone: removed)")

	m.write("CHANGELOG.md", changelog("- ⚠ `example.com/gated/box.(*Box[T]).Open` removed.\n- ⚠ `gone.*`: package removed.\n", "", "v0.1.0"))
	code, out = gate(t, m, apidiff)
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

// TestLastReleaseHasItsAPI checks that capkit's last release, as CHANGELOG.md names it, has its export file: the gate
// compares with it, in any clone.
func TestLastReleaseHasItsAPI(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(t), "CHANGELOG.md"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^## (v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?)`).FindSubmatch(data)
	require.NotNil(t, m, "CHANGELOG.md names no release")
	f := filepath.Join(root(t), "hack", "api", string(m[1])+".export")
	st, err := os.Stat(f)
	require.NoError(t, err, "the release commit writes it with make api-baseline")
	head, err := os.ReadFile(f)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(head), "github.com/capkit/capkit\n"), "%s is export data of another module", f)
	assert.Greater(t, st.Size(), int64(1024))
}
