package scaffold_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold"
)

func valid() scaffold.Options {
	return scaffold.Options{Module: "github.com/acme/cluster-api-provider-acme", Provider: "acme", CapkitReplace: "../capkit"}
}

func TestInitValidatesOptions(t *testing.T) {
	tests := []struct {
		name    string
		change  func(o *scaffold.Options)
		wantErr string
	}{
		{name: "valid"},
		{name: "module without host", change: func(o *scaffold.Options) { o.Module = "acme" }, wantErr: `Module "acme"`},
		{name: "module with empty element", change: func(o *scaffold.Options) { o.Module = "example.com//x" }, wantErr: `Module "example.com//x"`},
		{name: "module too long", change: func(o *scaffold.Options) { o.Module = "example.com/" + strings.Repeat("a", 300) }, wantErr: "Module"},
		{name: "capkit's module", change: func(o *scaffold.Options) { o.Module = "github.com/capkit/capkit/x" }, wantErr: "capkit's own"},
		{name: "upper-case provider", change: func(o *scaffold.Options) { o.Provider = "Acme" }, wantErr: `Provider "Acme"`},
		{name: "provider with a dash", change: func(o *scaffold.Options) { o.Provider = "my-cloud" }, wantErr: `Provider "my-cloud"`},
		{name: "empty provider", change: func(o *scaffold.Options) { o.Provider = "" }, wantErr: `Provider ""`},
		{name: "domain not DNS", change: func(o *scaffold.Options) { o.Domain = "Foo_bar.com" }, wantErr: `Domain "Foo_bar.com"`},
		{name: "domain without dot", change: func(o *scaffold.Options) { o.Domain = "local" }, wantErr: `Domain "local"`},
		{name: "bad version", change: func(o *scaffold.Options) { o.CapkitVersion = "1.0" }, wantErr: `CapkitVersion "1.0"`},
		{name: "replace with a quote", change: func(o *scaffold.Options) { o.CapkitReplace = `/a"b` }, wantErr: "CapkitReplace"},
		{name: "relative replace", change: func(o *scaffold.Options) { o.CapkitReplace = "capkit" }, wantErr: `CapkitReplace "capkit"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := valid()
			if tt.change != nil {
				tt.change(&o)
			}
			files, err := scaffold.Init(o)
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.NotEmpty(t, files)
				return
			}
			require.ErrorIs(t, err, scaffold.ErrInvalidOption)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestInitSubstitutesEveryPlaceholder(t *testing.T) {
	o := valid()
	o.Provider, o.Domain = "mycloud", "mycloud.example.org"
	files, err := scaffold.Init(o)
	require.NoError(t, err)
	for p, data := range files {
		if strings.HasPrefix(p, "hack/lib/") || p == "hack/envtest-binaries.sh" {
			continue
		}
		for _, ph := range []string{"quux", "Quux", "QUUX", "sample.capkit.io", "sample-capkit-io", "internal/scaffold/template", "capkit-version"} {
			assert.NotContains(t, p+"\n"+string(data), ph, "placeholder in %s", p)
		}
	}
	assert.Contains(t, files, "api/v1beta2/mycloudcluster_types.go")
	assert.Contains(t, files, "config/crd/bases/infrastructure.mycloud.example.org_mycloudmachines.yaml")
	assert.Contains(t, string(files["go.mod"]), "module github.com/acme/cluster-api-provider-acme\n")
	assert.Contains(t, string(files["go.mod"]), "replace github.com/capkit/capkit => ../capkit\n")
	assert.Contains(t, string(files["api/v1beta2/groupversion_info.go"]), `"infrastructure.mycloud.example.org"`)
}

// TestTemplateFollowsCapkit keeps the scaffold's hack scripts identical to capkit's, and the versions its go.mod
// requires equal to capkit's.
func TestTemplateFollowsCapkit(t *testing.T) {
	files, err := scaffold.Init(valid())
	require.NoError(t, err)
	for _, p := range []string{"hack/envtest-binaries.sh", "hack/lib/k8s-cmd.sh", "hack/lib/lock.sh"} {
		want, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(p)))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(files[p]), "%s differs from capkit's: copy it into internal/scaffold/template", p)
	}
	capkit := requires(t, mustRead(t, filepath.Join("..", "..", "go.mod")))
	for mod, v := range requires(t, files["go.mod"]) {
		if mod == scaffold.CapkitModule {
			continue
		}
		assert.Equal(t, capkit[mod], v, "the scaffold's go.mod requires %s %s, capkit's %s", mod, v, capkit[mod])
	}
	assert.Contains(t, string(files["go.mod"]), "\n"+goLine(t, mustRead(t, filepath.Join("..", "..", "go.mod")))+"\n")
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	require.NoError(t, err)
	return data
}

// requires returns the module versions of the require lines of a go.mod.
func requires(t *testing.T, gomod []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(f) >= 2 && strings.HasPrefix(f[1], "v") && strings.Contains(f[0], ".") {
			out[f[0]] = f[1]
		}
	}
	return out
}

func goLine(t *testing.T, gomod []byte) string {
	t.Helper()
	for _, l := range strings.Split(string(gomod), "\n") {
		if strings.HasPrefix(l, "go ") {
			return l
		}
	}
	t.Fatal("no go line in capkit's go.mod")
	return ""
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name      string
		files     scaffold.Files
		existing  string
		overwrite bool
		wantErr   string
	}{
		{name: "writes", files: scaffold.Files{"a/b.txt": []byte("x"), "hack/x.sh": []byte("#!/bin/sh\n")}},
		{name: "absolute", files: scaffold.Files{"/etc/x": nil}, wantErr: `"/etc/x"`},
		{name: "leaves dir", files: scaffold.Files{"../x": nil}, wantErr: `"../x"`},
		{name: "existing file", files: scaffold.Files{"a.txt": []byte("new")}, existing: "a.txt", wantErr: "exists"},
		{name: "existing file overwritten", files: scaffold.Files{"a.txt": []byte("new")}, existing: "a.txt", overwrite: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.existing != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, tt.existing), []byte("old"), 0o644))
			}
			err := scaffold.Write(dir, tt.files, tt.overwrite)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				entries, _ := os.ReadDir(dir)
				assert.LessOrEqual(t, len(entries), 1, "nothing written")
				return
			}
			require.NoError(t, err)
			for p, data := range tt.files {
				got, err := os.ReadFile(filepath.Join(dir, p))
				require.NoError(t, err)
				assert.Equal(t, data, got)
			}
			if _, ok := tt.files["hack/x.sh"]; ok {
				info, err := os.Stat(filepath.Join(dir, "hack/x.sh"))
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())
			}
		})
	}
}

func TestCreateMachinePoolEditsAndRefusesTwice(t *testing.T) {
	o := valid()
	files, err := scaffold.Init(o)
	require.NoError(t, err)
	read := func(p string) ([]byte, error) {
		if d, ok := files[p]; ok {
			return d, nil
		}
		return nil, os.ErrNotExist
	}
	mp, err := scaffold.CreateMachinePool(o, read)
	require.NoError(t, err)
	assert.Contains(t, mp, "api/v1beta2/acmemachinepool_types.go")
	assert.Contains(t, string(mp["controllers/controllers.go"]), "setupMachinePool(")
	assert.Contains(t, string(mp["api/v1beta2/zz_generated.deepcopy.go"]), "func (in *AcmeMachinePool) DeepCopyInto")
	assert.Contains(t, mp, "webhooks/machinepool.go")
	assert.Contains(t, string(mp["webhooks/setup.go"]), "hooks = append(hooks, AcmeMachinePool)")
	assert.Contains(t, string(mp["webhooks/setup.go"]), "resources=acmemachinepools")
	assert.Contains(t, string(mp["config/webhook/manifests.yaml"]), "/validate-infrastructure-cluster-x-k8s-io-v1beta2-acmemachinepool")
	for p, d := range mp {
		files[p] = d
	}
	_, err = scaffold.CreateMachinePool(o, read)
	require.ErrorContains(t, err, "exists")
}

func ExampleInit() {
	files, err := scaffold.Init(scaffold.Options{
		Module: "github.com/acme/cluster-api-provider-acme", Provider: "acme", CapkitVersion: "v0.1.0",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.SplitN(string(files["go.mod"]), "\n", 2)[0])
	fmt.Println(len(files["api/v1beta2/acmecluster_types.go"]) > 0, len(files["config/crd/bases/infrastructure.cluster.x-k8s.io_acmeclusters.yaml"]) > 0)
	// Output:
	// module github.com/acme/cluster-api-provider-acme
	// true true
}
