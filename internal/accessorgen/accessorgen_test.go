package accessorgen

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the zz_generated.accessors.go files of testdata/")

// goldenCases are the testdata packages that generate a file, with the interfaces each type must implement
// once it is compiled with it.
var goldenCases = []struct {
	dir        string
	implements map[string][]string
}{
	{"machine", map[string][]string{"FooMachine": {
		"conditions.Setter", "contract.ProvisionedAccessor", "contract.ProviderIDAccessor", "contract.AddressesAccessor",
		"contract.StatusFailureDomainAccessor", "scope.ResourceIDsAccessor",
	}}},
	{"cluster", map[string][]string{"FooCluster": {
		"conditions.Setter", "contract.ProvisionedAccessor", "contract.ControlPlaneEndpointAccessor",
		"contract.FailureDomainsAccessor", "scope.ResourceIDsAccessor",
	}}},
	{"machinepool", map[string][]string{"FooMachinePool": {
		"conditions.Setter", "contract.ProvisionedAccessor", "contract.ProviderIDListAccessor", "contract.ReplicasAccessor",
		"scope.ResourceIDsAccessor",
	}}},
	{"embedded", map[string][]string{
		"Bar": {"conditions.Setter", "contract.ProvisionedAccessor", "contract.ProviderIDAccessor", "contract.AddressesAccessor", "scope.ResourceIDsAccessor"},
		"Baz": {"contract.ProviderIDAccessor"},
	}},
	{"example", map[string][]string{"WidgetMachine": {"contract.ProviderIDAccessor"}}},
}

func TestGenerate(t *testing.T) {
	tests := []struct {
		name    string
		dir     string
		golden  bool   // compare with dir's zz_generated.accessors.go
		wantErr string // substring of the error
	}{
		{name: "every machine field", dir: "machine", golden: true},
		{name: "aliased imports and a pointer initialization", dir: "cluster", golden: true},
		{name: "hand-written methods are kept", dir: "machinepool", golden: true},
		{name: "embedded status, type without status, skipped and non-root types", dir: "embedded", golden: true},
		{name: "runnable example", dir: "example", golden: true},
		{name: "no contract field: no file", dir: "nothing"},
		{
			name: "initialization of the wrong type", dir: "badinit",
			wantErr: "cannot generate accessors for Bad: status.initialization (types.go:5) has type string, want a contract.*Initialization (contract.InfraClusterInitialization, contract.InfraMachineInitialization, contract.InfraMachinePoolInitialization, or a pointer to one); declare IsProvisioned and SetProvisioned by hand to skip it",
		},
		{
			name: "field behind a pointer", dir: "badpointer",
			wantErr: "cannot generate accessors for Bad: status.resources (types.go:5) is reached through the pointer field Status.Common",
		},
		{
			name: "ambiguous field", dir: "ambiguous",
			wantErr: "cannot generate accessors for Bad: spec.providerID is declared 2 times at the same depth (types.go:5, types.go:10)",
		},
		{name: "two packages in one folder", dir: "mixed", wantErr: `testdata/mixed/a.go" is package one, "testdata/mixed/b.go" is package two`},
		{name: "missing folder", dir: "absent", wantErr: `cannot read package "testdata/absent"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join("testdata", tt.dir)
			got, err := Generate(dir, DefaultOutput)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotContains(t, err.Error(), "\n")
				return
			}
			require.NoError(t, err)
			golden := filepath.Join(dir, DefaultOutput)
			if !tt.golden {
				assert.Nil(t, got)
				assert.NoFileExists(t, golden)
				return
			}
			if *update {
				require.NoError(t, Write(dir, DefaultOutput))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
			again, err := Generate(dir, DefaultOutput)
			require.NoError(t, err)
			assert.Equal(t, got, again, "the output is deterministic")
		})
	}
}

// TestGeneratedCodeCompiles type-checks each golden package with its generated file and asserts that its types
// implement the interfaces capkit's scopes require, against the real packages.
func TestGeneratedCodeCompiles(t *testing.T) {
	imp := exportImporter(t, "github.com/capkit/capkit/conditions", "github.com/capkit/capkit/contract",
		"github.com/capkit/capkit/scope", pathMetav1)
	for _, tc := range goldenCases {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", tc.dir)
			fset := token.NewFileSet()
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			var files []*ast.File
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".go") {
					f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
					require.NoError(t, err)
					files = append(files, f)
				}
			}
			f, err := parser.ParseFile(fset, "assertions.go", assertions(files[0].Name.Name, tc.implements), 0)
			require.NoError(t, err)
			files = append(files, f)
			conf := types.Config{Importer: imp}
			_, err = conf.Check("example.com/"+tc.dir, fset, files, nil)
			require.NoError(t, err)
		})
	}
}

// assertions is a Go file asserting that each type implements its interfaces.
func assertions(pkg string, implements map[string][]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n", pkg)
	used := map[string]bool{}
	var lines []string
	for typ, ifaces := range implements {
		for _, i := range ifaces {
			used[strings.Split(i, ".")[0]] = true
			lines = append(lines, fmt.Sprintf("var _ %s = (*%s)(nil)\n", i, typ))
		}
	}
	var pkgs []string
	for p := range used {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\t%q\n", "github.com/capkit/capkit/"+p)
	}
	b.WriteString(")\n\n")
	sort.Strings(lines)
	b.WriteString(strings.Join(lines, ""))
	return b.String()
}

// exportImporter is a types.Importer of the export data "go list -export" builds for pkgs and their
// dependencies.
func exportImporter(t *testing.T, pkgs ...string) types.Importer {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("cannot type-check the generated code without the go command:", err)
	}
	cmd := exec.Command(goTool, append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, pkgs...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, _ := strings.Cut(sc.Text(), "\t")
		exports[path] = file
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	})
}

// TestProviderPackagesFresh fails when the accessors of capkit's own API packages are not those the generator
// writes now ("make generate" rewrites them).
func TestProviderPackagesFresh(t *testing.T) {
	for _, dir := range []string{"../../examples/memcloud/api/v1beta2", "../../examples/podcloud/api/v1beta2", "../testtypes"} {
		t.Run(dir, func(t *testing.T) {
			got, err := Generate(dir, DefaultOutput)
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join(dir, DefaultOutput))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "run make generate")
		})
	}
}

func TestGenerateLimits(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\n// "+strings.Repeat("x", 100)+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.go"), []byte("package a\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c_test.go"), []byte(strings.Repeat("x", 1000)), 0o600))
	tests := []struct {
		name    string
		lim     limits
		wantErr string
	}{
		{"within the limits", limits{fileBytes: 200, totalBytes: 300, files: 2}, ""},
		{"a file too large", limits{fileBytes: 50, totalBytes: 300, files: 2}, `a.go": it is 115 bytes, larger than the limit of 50`},
		{"all files too large", limits{fileBytes: 200, totalBytes: 120, files: 2}, `its Go files are larger than the limit of 120 bytes (at "` + filepath.Join(dir, "b.go") + `")`},
		{"too many files", limits{fileBytes: 200, totalBytes: 300, files: 1}, "2 Go files, more than the limit of 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := generate(dir, DefaultOutput, tt.lim)
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Nil(t, got)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestWrite(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "example", "types.go"))
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("testdata", "example", DefaultOutput))
	require.NoError(t, err)

	t.Run("writes, keeps a current file, removes a stale one", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, DefaultOutput)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "types.go"), src, 0o600))
		require.NoError(t, Write(dir, ""))
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))

		old := time.Now().Add(-time.Hour).Truncate(time.Second)
		require.NoError(t, os.Chtimes(out, old, old))
		require.NoError(t, Write(dir, DefaultOutput))
		fi, err := os.Stat(out)
		require.NoError(t, err)
		assert.Equal(t, old, fi.ModTime(), "a current file is not rewritten")

		// Once the type declares its accessors, the generated file is removed.
		hand := strings.Replace(string(want), header, "", 1)
		hand = strings.Replace(hand, "var (\n\t_ contract.ProviderIDAccessor = (*WidgetMachine)(nil)\n)\n", "", 1)
		hand = strings.Replace(hand, "import (\n\t\"github.com/capkit/capkit/contract\"\n)\n", "", 1)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "accessors.go"), []byte(hand), 0o600))
		require.NoError(t, Write(dir, DefaultOutput))
		assert.NoFileExists(t, out)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 2, "no temporary file is left")
	})
	t.Run("refuses to overwrite a file it did not generate", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "types.go"), src, 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "accessors.go"), []byte("package example\n"), 0o600))
		err := Write(dir, "accessors.go")
		require.Error(t, err)
		assert.Contains(t, err.Error(), `accessors.go" exists and does not start with "// Code generated by capkit; DO NOT EDIT."`)
	})
	for _, name := range []string{"sub/x.go", "x.txt", "x_test.go"} {
		t.Run("refuses output "+name, func(t *testing.T) {
			err := Write(t.TempDir(), name)
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("cannot write accessors: output %q is not the name of a non-test Go file", name))
		})
	}
}

func TestImportName(t *testing.T) {
	tests := []struct{ path, want string }{
		{pathContract, "contract"},
		{pathMetav1, "v1"},
		{"gopkg.in/yaml.v3", "yaml"},
		{"github.com/go-logr/logr", "logr"},
		{"example.com/go-thing", "thing"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, importName(tt.path), tt.path)
	}
}
