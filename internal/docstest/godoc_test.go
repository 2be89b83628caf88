package docstest

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/doc/comment"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codeKind is what classify makes of a code block of a doc comment.
type codeKind int

const (
	notGo       codeKind = iota // shell commands, flag listings, YAML, output: not checked
	goCode                      // parses as Go and has syntax only Go has: checked
	looksLikeGo                 // does not parse, but has lines only Go has: fails
)

func (k codeKind) String() string { return [...]string{"not Go", "Go", "looks like Go"}[k] }

// goForm is the way a Go block parsed; normalize wraps a fragment in it to gofmt it.
type goForm int

const (
	formFile   goForm = iota + 1 // a whole file: package clause first
	formDecls                    // declarations: what follows a package clause
	formStmts                    // statements: what a function body holds
	formFields                   // struct fields: what a struct type holds
)

// goLikeRE matches lines that only Go has: a declaration keyword opening a line, a block statement ending
// in "{", a gofmt-ed ":=" after identifiers, "err != nil". A shell "${X:=y}" or "make generate" does not.
var goLikeRE = regexp.MustCompile(`(?m)^\s*(func\s*[A-Za-z_(]|package\s+[a-z]\w*\s*$|import\s+[("]|type\s+\w+(\[.*\])?\s+(struct|interface)\b|(var|const)\s+\w+|(if|for|switch|select)\b.*\{\s*$|defer\s|go\s+func\b|return\b)|\b\w+(\s*,\s*\w+)*\s+:=\s|\berr\s*!=\s*nil\b`)

// wrap returns text as a file of the form, and the number of lines put before text.
func wrap(text string, form goForm) (string, int) {
	switch form {
	case formDecls:
		return "package p\n\n" + text + "\n", 2
	case formStmts:
		return "package p\n\nfunc _() {\n" + text + "\n}\n", 3
	case formFields:
		return "package p\n\ntype _ struct {\n" + text + "\n}\n", 3
	}
	return text + "\n", 0
}

// classify tells Go code from the other blocks of doc comments. A block is Go when it parses as a whole
// file (package clause first), as declarations, as statements or as struct fields, and the parse has
// syntax only Go has: a declaration, an assignment, a call, a composite or function literal, a block
// statement (if, for, switch, select), return, defer, go, a send, ++ or --; a struct field with a tag or a
// type other than a bare name. YAML ("kind: Foo" parses as a labeled statement), a lone command ("make")
// and "name type" listings parse but have none of it. A block that parses in no form but matches goLikeRE
// (a Go fragment with "..." or "…" in it) looks like Go: it is neither checked nor let go.
func classify(text string) (codeKind, goForm) {
	forms := []goForm{formDecls, formStmts, formFields}
	if _, ok := packageName(text); ok {
		forms = []goForm{formFile}
	}
	for _, form := range forms {
		src, _ := wrap(text, form)
		f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		if hasGoSyntax(f, form) {
			return goCode, form
		}
		return notGo, 0
	}
	if goLikeRE.MatchString(text) {
		return looksLikeGo, 0
	}
	return notGo, 0
}

// hasGoSyntax reports whether the wrapped block f has syntax that only Go has (see classify).
func hasGoSyntax(f *ast.File, form goForm) bool {
	switch form {
	case formFile, formDecls:
		return len(f.Decls) > 0
	case formFields:
		for _, fd := range f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.TypeSpec).Type.(*ast.StructType).Fields.List {
			if _, bare := fd.Type.(*ast.Ident); fd.Tag != nil || !bare {
				return true
			}
		}
		return false
	}
	found := false
	ast.Inspect(f.Decls[0].(*ast.FuncDecl).Body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.AssignStmt, *ast.CallExpr, *ast.CompositeLit, *ast.FuncLit, *ast.IfStmt, *ast.ForStmt,
			*ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.ReturnStmt,
			*ast.DeferStmt, *ast.GoStmt, *ast.SendStmt, *ast.IncDecStmt, *ast.DeclStmt:
			found = true
		}
		return !found
	})
	return found
}

// normalize returns text gofmt-ed in the form, without the wrapping, its common indentation and the blank
// lines at either end; text that does not format in the form is only trimmed.
func normalize(text string, form goForm) string {
	text = trimBlank(dedent(strings.Split(text, "\n")))
	src, before := wrap(text, form)
	out, err := format.Source([]byte(src))
	if err != nil {
		return text
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if form != formFile {
		if len(lines) < before {
			return text
		}
		lines = lines[before-1:]
		if form != formDecls {
			lines = lines[1 : len(lines)-1]
		}
	}
	return trimBlank(dedent(lines))
}

// docBlock is a code block of a doc comment.
type docBlock struct {
	file string // relative to the repository root
	line int    // line of its first line
	text string
}

// candidate is compiled code that a Go block of a doc comment may copy.
type candidate struct {
	what string // "region NAME of FILE:LINE" or "ExampleX at FILE:LINE"
	text string
}

var regionStartRE = regexp.MustCompile(`(?m)^\s*// snippet:start (\S+)\s*$`)

// docPackage is the folder of one package, its doc comments' code blocks and the code they may copy.
type docPackage struct {
	dir        string // relative to the repository root
	blocks     []docBlock
	candidates []candidate
	problems   []string
}

// readPackage reads the .go files of dir (relative to root, the repository root) that the default build
// context includes: code blocks of the package doc and of exported declarations' docs from the non-test
// files; snippet regions from all; bodies of Example functions, without their output comment, from the
// test files.
func readPackage(root, dir string) (docPackage, error) {
	pkg := docPackage{dir: dir}
	entries, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		return pkg, err
	}
	var docParser comment.Parser
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		if ok, err := build.Default.MatchFile(filepath.Join(root, dir), name); err != nil || !ok {
			continue
		}
		rel := filepath.ToSlash(filepath.Join(dir, name))
		src, err := os.ReadFile(filepath.Join(root, dir, name))
		if err != nil {
			return pkg, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return pkg, err
		}
		for _, m := range regionStartRE.FindAllStringSubmatchIndex(string(src), -1) {
			rname := string(src[m[2]:m[3]])
			text, at, err := region(string(src), rname)
			if err != nil {
				pkg.problems = append(pkg.problems, fmt.Sprintf("%s: %v", rel, err))
				continue
			}
			pkg.candidates = append(pkg.candidates, candidate{what: fmt.Sprintf("region %q of %s:%d", rname, rel, at), text: text})
		}
		if strings.HasSuffix(name, "_test.go") {
			pkg.candidates = append(pkg.candidates, examples(fset, f, rel, src)...)
			continue
		}
		for _, g := range docGroups(f) {
			pkg.blocks = append(pkg.blocks, codeBlocks(fset, &docParser, g, rel)...)
		}
	}
	return pkg, nil
}

// examples returns the bodies of the file's Example functions, each without the output comment that ends it.
func examples(fset *token.FileSet, f *ast.File, rel string, src []byte) []candidate {
	var out []candidate
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "Example") || fd.Type.Params.NumFields() > 0 {
			continue
		}
		body := strings.Split(string(src[fset.Position(fd.Body.Lbrace).Offset+1:fset.Position(fd.Body.Rbrace).Offset]), "\n")
		for i, l := range body {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "// Output:") || strings.HasPrefix(t, "// Unordered output:") {
				body = body[:i]
				break
			}
		}
		out = append(out, candidate{
			what: fmt.Sprintf("%s at %s:%d", fd.Name.Name, rel, fset.Position(fd.Pos()).Line),
			text: trimBlank(dedent(body)),
		})
	}
	return out
}

// docGroups returns the package doc and the docs of the exported declarations of f: functions, methods of
// exported types, types, constants, variables, and the fields and methods of exported structs and interfaces.
func docGroups(f *ast.File) []*ast.CommentGroup {
	groups := []*ast.CommentGroup{f.Doc}
	fields := func(t ast.Expr) {
		var list *ast.FieldList
		switch t := t.(type) {
		case *ast.StructType:
			list = t.Fields
		case *ast.InterfaceType:
			list = t.Methods
		}
		if list == nil {
			return
		}
		for _, fd := range list.List {
			groups = append(groups, fd.Doc)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || exportedReceiver(d.Recv.List[0].Type)) {
				groups = append(groups, d.Doc)
			}
		case *ast.GenDecl:
			exported := false
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						exported = true
						groups = append(groups, s.Doc)
						fields(s.Type)
					}
				case *ast.ValueSpec:
					if slices.ContainsFunc(s.Names, (*ast.Ident).IsExported) {
						exported = true
						groups = append(groups, s.Doc)
					}
				}
			}
			if exported {
				groups = append(groups, d.Doc)
			}
		}
	}
	return slices.DeleteFunc(groups, func(g *ast.CommentGroup) bool { return g == nil })
}

func exportedReceiver(t ast.Expr) bool {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

// codeBlocks returns the code blocks of a doc comment, each with the line of its first line in the file:
// the first comment line after the previous block that holds that line, indented.
func codeBlocks(fset *token.FileSet, p *comment.Parser, g *ast.CommentGroup, rel string) []docBlock {
	type rawLine struct {
		text string
		line int
	}
	var raw []rawLine
	for _, c := range g.List {
		line := fset.Position(c.Slash).Line
		if strings.HasPrefix(c.Text, "//") {
			raw = append(raw, rawLine{c.Text[2:], line})
			continue
		}
		for i, l := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/"), "\n") {
			raw = append(raw, rawLine{l, line + i})
		}
	}
	var out []docBlock
	next := 0
	for _, b := range p.Parse(g.Text()).Content {
		code, ok := b.(*comment.Code)
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(code.Text, "\n")
		line := fset.Position(g.Pos()).Line
		for i := next; i < len(raw); i++ {
			r := strings.TrimPrefix(raw[i].text, " ")
			if indented := r != "" && (r[0] == ' ' || r[0] == '\t'); indented && strings.TrimSpace(r) == strings.TrimSpace(first) {
				line, next = raw[i].line, i+strings.Count(code.Text, "\n")
				break
			}
		}
		out = append(out, docBlock{file: rel, line: line, text: strings.TrimRight(code.Text, "\n")})
	}
	return out
}

// packageDirs returns the folders under root (relative to it) that may hold Go packages: testdata, vendor,
// folders starting with "." or "_", and bin are skipped. Nested modules are walked too.
func packageDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if n := d.Name(); rel != "." && (n == "testdata" || n == "vendor" || rel == "bin" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		dirs = append(dirs, rel)
		return nil
	})
	return dirs, err
}

// checkBlock returns what is wrong with a Go block of a doc comment that copies none of the candidates:
// the closest one and the first line where they differ.
func checkBlock(b docBlock, form goForm, candidates []candidate) string {
	got := normalize(b.text, form)
	gl := strings.Split(got, "\n")
	best, bestAt := -1, -1
	for i, c := range candidates {
		want := normalize(c.text, form)
		if want == got {
			return ""
		}
		if at := firstDifference(gl, strings.Split(want, "\n")); at > bestAt {
			best, bestAt = i, at
		}
	}
	msg := fmt.Sprintf("%s:%d: Go code in a doc comment copies no Example body (without its output comment) and no "+
		"// snippet:start NAME region of its package, and is no whole file: copy an Example body (write the Example), "+
		"mark the region of compiled code it shows, or replace it by prose that names the Example", b.file, b.line)
	if best >= 0 && bestAt > 0 {
		wl := strings.Split(normalize(candidates[best].text, form), "\n")
		line := func(l []string) string {
			if bestAt < len(l) {
				return strconv.Quote(l[bestAt])
			}
			return "(end)"
		}
		msg += fmt.Sprintf("; closest is %s, which differs at the block's line %d: block has %s, code has %s", candidates[best].what, bestAt+1, line(gl), line(wl))
	}
	return msg
}

// TestGoDocSnippets checks the code blocks of Go doc comments (the package doc and exported declarations'
// docs) of every package of the repository, the nested test/ module included (see the package doc): each
// block that classify takes for Go is a copy of an Example body or of a marked region of its package, or
// a whole file that compiles (root module only); a block that looks like Go but does not parse fails.
func TestGoDocSnippets(t *testing.T) {
	start := time.Now()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	dirs, err := packageDirs(root)
	require.NoError(t, err)
	var (
		problems           []string
		whole              []wholeFile
		blocks, goBlocks   int
		copies, wholeFiles int
	)
	for _, dir := range dirs {
		pkg, err := readPackage(root, dir)
		require.NoError(t, err)
		problems = append(problems, pkg.problems...)
		for _, b := range pkg.blocks {
			blocks++
			kind, form := classify(b.text)
			switch kind {
			case notGo:
				continue
			case looksLikeGo:
				problems = append(problems, fmt.Sprintf("%s:%d: code block in a doc comment looks like Go but parses as no Go file, declarations, statements or struct fields "+
					"(\"...\" or \"…\" in it?): copy an Example body or a marked region of compiled code, or replace it by prose that names the Example", b.file, b.line))
				continue
			}
			goBlocks++
			if form != formFile {
				if p := checkBlock(b, form, pkg.candidates); p != "" {
					problems = append(problems, p)
				} else {
					copies++
				}
				continue
			}
			wholeFiles++
			if strings.HasPrefix(dir, "test"+string(filepath.Separator)) || dir == "test" {
				problems = append(problems, fmt.Sprintf("%s:%d: a whole-file block is compiled only in the root module: copy an Example body or a marked region instead", b.file, b.line))
				continue
			}
			whole = append(whole, wholeFile{
				b:    block{file: b.file, line: b.line - 1, lang: "go", text: b.text},
				path: fmt.Sprintf("%s/g%d/snippet.go", snippetsDir, len(whole)),
			})
		}
	}
	problems = append(problems, compile(t, root, whole, nil)...)
	t.Logf("%d packages, %d code blocks in doc comments, %d of them Go: %d copies of Examples or regions, %d whole files (%s)",
		len(dirs), blocks, goBlocks, copies, wholeFiles, time.Since(start).Round(time.Millisecond))
	for _, p := range problems {
		t.Error(p)
	}
}

// TestClassify checks the rule that tells Go code from the other blocks of doc comments.
func TestClassify(t *testing.T) {
	tests := []struct {
		name, text string
		want       codeKind
		form       goForm
	}{
		{name: "statements", text: "c, err := cloud.New()\nif err != nil {\n\treturn err\n}", want: goCode, form: formStmts},
		{name: "one call", text: "require.Empty(t, lint.CheckType(&v1beta2.MemCluster{}, lint.KindInfraCluster, contract.V1Beta2))", want: goCode, form: formStmts},
		{name: "declarations", text: "var env *testenv.Environment\n\nfunc TestMain(m *testing.M) { testenv.Main(m, &env) }", want: goCode, form: formDecls},
		{name: "methods", text: "func (m *FooMachine) GetConditions() []metav1.Condition { return m.Status.Conditions }", want: goCode, form: formDecls},
		{name: "struct fields", text: "// +optional\nStatus contract.MachineTemplateCapacity `json:\"status,omitempty,omitzero\"`", want: goCode, form: formFields},
		{name: "whole file", text: "// Command x.\npackage main\n\nfunc main() {}", want: goCode, form: formFile},
		{name: "Go with an ellipsis", text: "func TestMain(m *testing.M) {\n\tcrds, err := capienv.CRDs()\n\t...\n}", want: looksLikeGo},
		{name: "Go with a unicode ellipsis", text: "data, err := components.Build(cfg)\nif err != nil { … }", want: looksLikeGo},
		{name: "YAML", text: "kind: MemMachine\nmetadata:\n  name: m-0\nspec:\n  image: ubuntu", want: notGo},
		{name: "one YAML line", text: "kind: Foo", want: notGo},
		{name: "YAML list", text: "args:\n- --leader-elect\n- \"--metrics-bind-address=:8080\"", want: notGo},
		{name: "go run", text: "go run ./examples/memcloud/cmd/demo [--machines 1+3] [--seed 1]", want: notGo},
		{name: "make", text: "make", want: notGo},
		{name: "make target", text: "make demo-pods", want: notGo},
		{name: "capkit check", text: "capkit check PATH...                 check CRDs and clusterctl release files", want: notGo},
		{name: "shell default", text: "IMAGE=${MEMCLOUD_IMAGE:=docker.io/capkit/memcloud:dev} make deploy", want: notGo},
		{name: "environment and install", text: "GOBIN=$HOME/bin go install github.com/capkit/capkit/cmd/capkit@latest", want: notGo},
		{name: "Makefile rule", text: "generate:\n\tcontroller-gen crd paths=./...\n\tgo run ./hack/components", want: notGo},
		{name: "flag listing", text: "manager [--namespace NS] [--leader-elect]\n        [--webhook-port 9443]", want: notGo},
		{name: "error output", text: `cannot parse user data: write_files[3].permissions: "0x644" is not octal`, want: notGo},
		{name: "name type listing", text: "status.conditions     []metav1.Condition   GetConditions, SetConditions", want: notGo},
		{name: "two words", text: "not run\nalso skipped", want: notGo},
		{name: "metrics listing", text: "capkit_cloud_calls_total{resource, operation, outcome}    cloud calls", want: notGo},
		{name: "table of calls", text: "NewHelper(obj, client)                  NewHelper(client, obj, options...)", want: notGo},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kind, form := classify(tc.text)
			assert.Equal(t, tc.want, kind)
			assert.Equal(t, tc.form, form)
		})
	}
}

// TestCheckBlock checks that a Go block equal to an Example body or a region modulo indentation and gofmt
// passes, and that one that differs fails at its file and line, naming the closest code and the line.
func TestCheckBlock(t *testing.T) {
	src := "package p_test\n\nfunc ExampleNew() {\n\tc, err := New()\n\tif err != nil {\n\t\treturn\n\t}\n\tfmt.Println(c)\n\t// Output: c\n}\n" +
		"\nfunc TestX(t *testing.T) {\n\t// snippet:start use\n\tx := map[string]int{\"a\": 1, \"bb\": 2}\n\t// snippet:end use\n}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p/p_test.go", src, parser.ParseComments)
	require.NoError(t, err)
	candidates := examples(fset, f, "p/p_test.go", []byte(src))
	require.Len(t, candidates, 1)
	assert.Equal(t, "ExampleNew at p/p_test.go:3", candidates[0].what)
	text, at, err := region(src, "use")
	require.NoError(t, err)
	candidates = append(candidates, candidate{what: fmt.Sprintf("region \"use\" of p/p_test.go:%d", at), text: text})

	check := func(text string) string {
		kind, form := classify(text)
		require.Equal(t, goCode, kind)
		return checkBlock(docBlock{file: "p/doc.go", line: 7, text: text}, form, candidates)
	}
	assert.Empty(t, check("c, err := New()\nif err != nil {\n    return\n}\nfmt.Println(c)"), "indented with spaces, as gofmt does not")
	assert.Empty(t, check("x := map[string]int{\"a\": 1,  \"bb\": 2}"), "a region, spaced otherwise")
	p := check("c, err := New()\nif err != nil {\n\treturn\n}\nfmt.Println(c, err)")
	assert.Contains(t, p, "p/doc.go:7: Go code in a doc comment copies no Example body")
	assert.Contains(t, p, `closest is ExampleNew at p/p_test.go:3, which differs at the block's line 5: block has "fmt.Println(c, err)", code has "fmt.Println(c)"`)
}

// TestCodeBlocksHaveTheirLines checks that code blocks of doc comments are found with their lines.
func TestCodeBlocksHaveTheirLines(t *testing.T) {
	src := "// Package p does things.\n//\n//\tx := 1\n//\n// Then:\n//\n//\tx := 1\n//\ty := 2\npackage p\n\n" +
		"// F does things:\n//\n//\tp.F()\nfunc F() {}\n\n// f is not exported:\n//\n//\tp.f()\nfunc f() {}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p/doc.go", src, parser.ParseComments)
	require.NoError(t, err)
	var got []docBlock
	var p comment.Parser
	for _, g := range docGroups(f) {
		got = append(got, codeBlocks(fset, &p, g, "p/doc.go")...)
	}
	assert.Equal(t, []docBlock{
		{file: "p/doc.go", line: 3, text: "x := 1"},
		{file: "p/doc.go", line: 7, text: "x := 1\ny := 2"},
		{file: "p/doc.go", line: 13, text: "p.F()"},
	}, got)
}
