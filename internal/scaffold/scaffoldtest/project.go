package scaffoldtest

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commandTimeout bounds each command of CheckProject.
const commandTimeout = 10 * time.Minute

// RequireTools fails t unless what CheckProject needs is there: kube-apiserver and etcd in $KUBEBUILDER_ASSETS,
// and make. capkit's make test provides both; a missing one fails, never skips.
func RequireTools(t *testing.T) {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run 'make test', which builds kube-apiserver and etcd (hack/envtest-binaries.sh) and sets it")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is needed to run the generated project's targets: %v", err)
	}
}

// CheckProject runs in dir, a generated provider whose go.mod replaces capkit with a checkout, what its CI runs:
// go mod tidy, go build, go vet, make test (on the kube-apiserver and etcd of $KUBEBUILDER_ASSETS) and make check,
// which must report 0 violations. When $CAPKIT_CONTROLLER_GEN names controller-gen v0.21.0 (capkit's make test sets
// it), make generate must also leave every file as it was: the scaffold's generated files are fresh.
func CheckProject(t *testing.T, dir string) {
	t.Helper()
	start := time.Now()
	Run(t, dir, "go", "mod", "tidy")
	Run(t, dir, "go", "build", "./...")
	Run(t, dir, "go", "vet", "./...")
	Run(t, dir, "make", "test")
	assert.Contains(t, Run(t, dir, "make", "check"), " 0 violations", "capkit check of the release files")
	if cg := os.Getenv("CAPKIT_CONTROLLER_GEN"); cg != "" {
		before := snapshot(t, dir)
		Run(t, dir, "make", "generate", "CONTROLLER_GEN="+cg)
		after := snapshot(t, dir)
		for p, data := range after {
			assert.Equal(t, string(before[p]), string(data), "make generate changed %s", p)
		}
		assert.Len(t, after, len(before), "make generate added or removed files")
	} else {
		t.Log("CAPKIT_CONTROLLER_GEN is not set: make generate not checked (capkit's make test sets it)")
	}
	t.Logf("generated project checked in %s", time.Since(start).Round(time.Second))
}

// Run runs name with args in dir and returns its combined output; it fails t when the command fails.
func Run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out.String())
	}
	return out.String()
}

// snapshot returns the files of dir but those of the tools (bin).
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	}))
	return out
}
