package docstest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// module is the capkit module path; docModule is the module path the documentation's own imports use, and
// providerPkg the package they resolve to.
const (
	module      = "github.com/capkit/capkit"
	docModule   = "example.com/myprovider"
	providerPkg = module + "/internal/docstest/myprovider"
	snippetsDir = "internal/docstest/snippets" // exists only in the overlay
)

// block is one fenced code block of a Markdown file.
type block struct {
	file   string // relative to the module root
	line   int    // line of the opening fence, 1-based
	lang   string // first word of the info string, lower case
	text   string // the content, without the fences and the fence's indentation
	marker string // PATH#NAME of a <!-- snippet: PATH#NAME --> line right before it (blank lines between allowed)
}

// where returns "file:line" of the block's line i of content (0 is the fence).
func (b block) where(i int) string { return fmt.Sprintf("%s:%d", b.file, b.line+i) }

var (
	fenceRE   = regexp.MustCompile("^( *)(```+|~~~+)\\s*([^`\\s]*)")
	markerRE  = regexp.MustCompile(`^\s*<!--\s*snippet:\s*(\S+)\s*-->\s*$`)
	anyGoRE   = regexp.MustCompile("(?i)^[ \t>]*(```+|~~~+)\\s*(go|golang)\\b")
	packageRE = regexp.MustCompile(`^package\s+([A-Za-z_][A-Za-z0-9_]*)\s*(//.*)?$`)
)

// parseBlocks returns the fenced code blocks of a Markdown file, and an error for a marker line that no
// block follows, an unclosed fence, or a Go fence the parser did not see as the start of a block (one in a
// block quote, say): no Go snippet escapes the check.
func parseBlocks(file, content string) ([]block, []string) {
	var (
		blocks   []block
		problems []string
		lines    = strings.Split(content, "\n")
		marker   string
		markerAt int
		goFences int
	)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if anyGoRE.MatchString(line) {
			goFences++
		}
		if m := markerRE.FindStringSubmatch(line); m != nil {
			if marker != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: snippet marker %q is followed by no code block", file, markerAt, marker))
			}
			marker, markerAt = m[1], i+1
			continue
		}
		f := fenceRE.FindStringSubmatch(line)
		if f == nil {
			if strings.TrimSpace(line) != "" && marker != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: snippet marker %q is followed by no code block", file, markerAt, marker))
				marker = ""
			}
			continue
		}
		indent, fence := len(f[1]), f[2]
		b := block{file: file, line: i + 1, lang: strings.ToLower(f[3]), marker: marker}
		marker = ""
		var body []string
		closed := false
		for i++; i < len(lines); i++ {
			l := lines[i]
			if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				closed = true
				break
			}
			// Content lines lose up to the fence's indentation (a block in a list item).
			n := 0
			for n < indent && n < len(l) && l[n] == ' ' {
				n++
			}
			body = append(body, l[n:])
		}
		if !closed {
			problems = append(problems, fmt.Sprintf("%s:%d: code block is not closed", file, b.line))
		}
		b.text = strings.Join(body, "\n")
		blocks = append(blocks, b)
	}
	if marker != "" {
		problems = append(problems, fmt.Sprintf("%s:%d: snippet marker %q is followed by no code block", file, markerAt, marker))
	}
	seen := 0
	for _, b := range blocks {
		if isGo(b) {
			seen++
		}
		if b.marker != "" && !isGo(b) {
			problems = append(problems, fmt.Sprintf("%s:%d: snippet marker %q on a %q block: only go blocks are checked", file, b.line, b.marker, b.lang))
		}
	}
	if seen != goFences {
		problems = append(problems, fmt.Sprintf("%s: %d lines open a go block but %d go blocks were found: a go block in a block quote or an unusual fence escapes the check; write it as a plain ```go fence", file, goFences, seen))
	}
	return blocks, problems
}

func isGo(b block) bool { return b.lang == "go" || b.lang == "golang" }

// packageName returns the package clause's name when the block is a whole file: its first line that is
// neither blank nor a comment is a package clause.
func packageName(text string) (string, bool) {
	inComment := false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case inComment:
			if strings.Contains(t, "*/") {
				inComment = false
			}
		case t == "" || strings.HasPrefix(t, "//"):
		case strings.HasPrefix(t, "/*"):
			inComment = !strings.Contains(t, "*/")
		default:
			if m := packageRE.FindStringSubmatch(t); m != nil {
				return m[1], true
			}
			return "", false
		}
	}
	return "", false
}

// region returns the lines between "// snippet:start name" and "// snippet:end name" of a Go file, without
// leading and trailing blank lines and with their common indentation removed, and the line of the start.
func region(src, name string) (string, int, error) {
	lines := strings.Split(src, "\n")
	start, end := -1, -1
	for i, l := range lines {
		switch strings.TrimSpace(l) {
		case "// snippet:start " + name:
			if start >= 0 {
				return "", 0, fmt.Errorf("region %q starts twice", name)
			}
			start = i
		case "// snippet:end " + name:
			if end < 0 {
				end = i
			}
		}
	}
	if start < 0 || end < start {
		return "", 0, fmt.Errorf("no region %q (// snippet:start %s ... // snippet:end %s)", name, name, name)
	}
	return trimBlank(dedent(lines[start+1 : end])), start + 1, nil
}

// dedent removes the longest prefix of tabs and spaces that every non-blank line has.
func dedent(lines []string) []string {
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ws, false
			continue
		}
		for !strings.HasPrefix(ws, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, prefix)
		if strings.TrimSpace(l) == "" {
			out[i] = ""
		}
	}
	return out
}

// trimBlank joins lines without the blank ones at either end.
func trimBlank(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// firstDifference returns the 0-based index of the first line where a and b differ.
func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// checkRegion checks a block with a marker against the region it names; it returns the Go file's folder
// (relative to root) for the compile check.
func checkRegion(root string, b block) (string, error) {
	path, name, ok := strings.Cut(b.marker, "#")
	if !ok || path == "" || name == "" {
		return "", fmt.Errorf("%s: snippet marker %q: want PATH#NAME", b.where(0), b.marker)
	}
	if filepath.Ext(path) != ".go" || slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "testdata") {
		return "", fmt.Errorf("%s: snippet marker %q: the region must be in a compiled .go file outside testdata", b.where(0), b.marker)
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
	if err != nil {
		return "", fmt.Errorf("%s: snippet marker %q: %w", b.where(0), b.marker, err)
	}
	want, at, err := region(string(src), name)
	if err != nil {
		return "", fmt.Errorf("%s: snippet marker %q: %s: %w", b.where(0), b.marker, path, err)
	}
	got := trimBlank(strings.Split(b.text, "\n"))
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		i := firstDifference(gl, wl)
		line := func(l []string) string {
			if i < len(l) {
				return strconv.Quote(l[i])
			}
			return "(end)"
		}
		// The block's first content line is b.line+1, unless blank lines were trimmed.
		lead := len(strings.Split(b.text, "\n")) - len(strings.Split(strings.TrimLeft(b.text, "\n"), "\n"))
		return "", fmt.Errorf("%s: block differs from region %q of %s:%d: block has %s, code has %s (paste the region again)",
			b.where(1+lead+i), name, path, at+1+i, line(gl), line(wl))
	}
	return filepath.Dir(filepath.FromSlash(path)), nil
}

// docFiles returns README.md and every .md file under docs/, relative to root.
func docFiles(t *testing.T, root string) []string {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	return files
}

// wholeFile is a block compiled as a file of its own package in the overlay.
type wholeFile struct {
	b    block
	path string // in the overlay, relative to root
}

// snippetLineRE matches a position in the file of whole-file block N, by its overlay path or by the path of
// its content in dir (what go build reports), with the line in the second group.
func snippetLineRE(dir string) *regexp.Regexp {
	return regexp.MustCompile(`(?:[^\s:]*/)?(?:` + regexp.QuoteMeta(snippetsDir) + `/s(\d+)/snippet|` +
		regexp.QuoteMeta(filepath.ToSlash(dir)) + `/s(\d+))\.go:(\d+)(?::\d+)?`)
}

// TestSnippetsCompile checks every ```go block of README.md and docs/**/*.md (see the package doc): a block
// with a snippet marker equals the region it names (whose package passes go vet), a whole file compiles, and
// any other go block fails.
func TestSnippetsCompile(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	var (
		problems []string
		whole    []wholeFile
		regions  = map[string]bool{}
		count    int
	)
	for _, file := range docFiles(t, root) {
		content, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		require.NoError(t, err)
		blocks, p := parseBlocks(file, string(content))
		problems = append(problems, p...)
		for _, b := range blocks {
			if !isGo(b) {
				continue
			}
			count++
			if b.marker != "" {
				dir, err := checkRegion(root, b)
				if err != nil {
					problems = append(problems, err.Error())
				} else {
					regions[dir] = true
				}
				continue
			}
			if _, ok := packageName(b.text); !ok {
				problems = append(problems, fmt.Sprintf("%s: go block is neither a whole file (package clause first) nor preceded by <!-- snippet: PATH#NAME --> naming a region of compiled code", b.where(0)))
				continue
			}
			if formatted, err := format.Source([]byte(b.text)); err == nil && string(formatted) != b.text+"\n" && string(formatted) != b.text {
				gl, fl := strings.Split(b.text, "\n"), strings.Split(string(formatted), "\n")
				i := firstDifference(gl, fl)
				problems = append(problems, fmt.Sprintf("%s: go block is not gofmt-ed (want %q)", b.where(1+i), fl[min(i, len(fl)-1)]))
			}
			whole = append(whole, wholeFile{b: b, path: fmt.Sprintf("%s/s%d/snippet.go", snippetsDir, len(whole))})
		}
	}
	t.Logf("%d go blocks: %d whole files, the others regions of %d packages", count, len(whole), len(regions))
	problems = append(problems, compile(t, root, whole, regions)...)
	for _, p := range problems {
		t.Error(p)
	}
}

// compile type-checks every whole-file block, each its own package in an overlay, in one go build run, and
// vets the packages of the regions (test files included) in one go vet run; it returns their findings, with
// the Markdown file and line of each. go vet cannot run on a folder that exists only in the overlay, so a
// whole-file block of an external test package (package x_test) is built as package x: the same file,
// type-checked, on the same lines.
func compile(t *testing.T, root string, whole []wholeFile, regions map[string]bool) []string {
	dir := t.TempDir()
	overlay := map[string]string{}
	var pkgs []string
	for i, w := range whole {
		src := strings.ReplaceAll(w.b.text, `"`+docModule, `"`+providerPkg) + "\n"
		if name, _ := packageName(w.b.text); strings.HasSuffix(name, "_test") {
			src = regexp.MustCompile(`(?m)^package\s+`+name+`\b`).ReplaceAllString(src, "package "+strings.TrimSuffix(name, "_test"))
		}
		tmp := filepath.Join(dir, fmt.Sprintf("s%d.go", i))
		require.NoError(t, os.WriteFile(tmp, []byte(src), 0o600))
		overlay[filepath.Join(root, filepath.FromSlash(w.path))] = tmp
		pkgs = append(pkgs, "./"+filepath.Dir(w.path))
	}
	var problems []string
	if len(pkgs) > 0 {
		overlayJSON, err := json.Marshal(map[string]any{"Replace": overlay})
		require.NoError(t, err)
		overlayFile := filepath.Join(dir, "overlay.json")
		require.NoError(t, os.WriteFile(overlayFile, overlayJSON, 0o600))
		problems = append(problems, run(root, whole, snippetLineRE(dir), append([]string{"build", "-o", os.DevNull, "-overlay", overlayFile}, pkgs...))...)
	}
	var regionPkgs []string
	for d := range regions {
		regionPkgs = append(regionPkgs, "./"+filepath.ToSlash(d))
	}
	slices.Sort(regionPkgs)
	if len(regionPkgs) > 0 {
		problems = append(problems, run(root, whole, snippetLineRE(dir), append([]string{"vet"}, regionPkgs...))...)
	}
	return problems
}

// run runs the go command in root and returns its findings, each whole-file block's lines translated to
// the Markdown file's.
func run(root string, whole []wholeFile, lineRE *regexp.Regexp, args []string) []string {
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	var problems []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		problems = append(problems, lineRE.ReplaceAllStringFunc(line, func(m string) string {
			s := lineRE.FindStringSubmatch(m)
			i, _ := strconv.Atoi(s[1] + s[2])
			n, _ := strconv.Atoi(s[3])
			return whole[i].b.where(n)
		}))
	}
	if len(problems) == 0 {
		problems = append(problems, fmt.Sprintf("go %s failed: %v\n%s", args[0], err, out))
	}
	return problems
}

// TestParseBlocksLetsNoGoBlockEscape checks the checker itself on Markdown that must fail.
func TestParseBlocksLetsNoGoBlockEscape(t *testing.T) {
	tests := []struct {
		name, md   string
		wantBlocks int
		want       []string
	}{
		{name: "fragment without marker is a go block with no marker", md: "x\n\n```go\nx := 1\n```\n", wantBlocks: 1},
		{name: "indented block in a list item", md: "- item\n\n  ```go\n  package p\n  ```\n", wantBlocks: 1},
		{name: "marker followed by prose", md: "<!-- snippet: a.go#x -->\ntext\n```go\nx\n```\n", wantBlocks: 1,
			want: []string{`f.md:1: snippet marker "a.go#x" is followed by no code block`}},
		{name: "marker on a yaml block", md: "<!-- snippet: a.go#x -->\n```yaml\na: 1\n```\n", wantBlocks: 1,
			want: []string{`f.md:2: snippet marker "a.go#x" on a "yaml" block: only go blocks are checked`}},
		{name: "go block in a block quote", md: "> ```go\n> x := 1\n> ```\n",
			want: []string{"f.md: 1 lines open a go block but 0 go blocks were found: a go block in a block quote or an unusual fence escapes the check; write it as a plain ```go fence"}},
		{name: "unclosed", md: "```go\npackage p\n", wantBlocks: 1, want: []string{"f.md:1: code block is not closed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			blocks, problems := parseBlocks("f.md", tc.md)
			assert.Len(t, blocks, tc.wantBlocks)
			assert.Equal(t, tc.want, problems)
		})
	}
	blocks, _ := parseBlocks("f.md", "- item\n\n  ```go\n  package p\n\n  var x = 1\n  ```\n")
	require.Len(t, blocks, 1)
	assert.Equal(t, "package p\n\nvar x = 1", blocks[0].text)
	name, ok := packageName("// Copyright\n/* a\nb */\npackage p_test\n")
	assert.True(t, ok)
	assert.Equal(t, "p_test", name)
	_, ok = packageName("x := 1\npackage p\n")
	assert.False(t, ok, "a fragment is no whole file")
}

// TestRegionMismatchNamesTheLine checks that a block that differs from its region fails at the line that
// differs, and that a marker naming no region fails.
func TestRegionMismatchNamesTheLine(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(root, "internal/docstest/myprovider/controllers/setup.go"))
	require.NoError(t, err)
	want, _, err := region(string(src), "wiring")
	require.NoError(t, err)
	b := block{file: "f.md", line: 10, lang: "go", marker: "internal/docstest/myprovider/controllers/setup.go#wiring", text: want}
	_, err = checkRegion(root, b)
	require.NoError(t, err)
	b.text = strings.Replace(want, "opts...)", "opts)", 1)
	_, err = checkRegion(root, b)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "f.md:15: block differs from region \"wiring\"")
	b.marker = "internal/docstest/myprovider/controllers/setup.go#nothing"
	_, err = checkRegion(root, b)
	assert.ErrorContains(t, err, `no region "nothing"`)
	b.marker = "docs/x.md#wiring"
	_, err = checkRegion(root, b)
	assert.ErrorContains(t, err, "compiled .go file")
}
