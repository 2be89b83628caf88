package scaffold_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold"
	"github.com/capkit/capkit/internal/scaffold/scaffoldtest"
	"github.com/capkit/capkit/providertest/testenv"
)

// firstRelease is the release whose providers TestReleasedProviderUpgradesWithGoFix upgrades.
const firstRelease = "v0.1.0"

// maxFixRounds bounds the go fix runs: a run applies what it can, an inlined call may expose another deprecated
// name, and a round that changes nothing ends the loop.
const maxFixRounds = 5

// TestReleasedProviderUpgradesWithGoFix is what a provider team does at an upgrade: the provider `capkit init`
// wrote at v0.1.0 (the release commit's capkit, built from this repository's history), pointed at this checkout,
// runs `go fix ./...` until it changes nothing, and must then build, vet, pass its `make test` and `make check`
// with no manual edit. A rename or move without a deprecated form that go fix inlines fails here.
func TestReleasedProviderUpgradesWithGoFix(t *testing.T) {
	scaffoldtest.RequireTools(t)
	root, err := testenv.SourceDir("../..")
	require.NoError(t, err)
	release := extractRelease(t, root, firstRelease)

	capkit := filepath.Join(t.TempDir(), "capkit-"+firstRelease)
	scaffoldtest.Run(t, release, "go", "build", "-o", capkit, "./cmd/capkit")
	dir := filepath.Join(t.TempDir(), "cluster-api-provider-acme")
	scaffoldtest.Run(t, release, capkit, "init", dir, "--module", "example.com/acme/cluster-api-provider-acme",
		"--provider", "acmecloud", "--domain", "acme.example.com", "--capkit-version", firstRelease, "--capkit-replace", root)

	scaffoldtest.Run(t, dir, "go", "mod", "tidy")
	for round := 1; ; round++ {
		out := fix(t, dir)
		if !strings.Contains(out, "applied") {
			break
		}
		t.Logf("go fix round %d: %s", round, strings.TrimSpace(out))
		require.Less(t, round, maxFixRounds, "go fix still changes the provider after %d rounds", maxFixRounds)
	}
	scaffoldtest.Run(t, dir, "go", "build", "./...")
	scaffoldtest.Run(t, dir, "go", "vet", "./...")
	scaffoldtest.Run(t, dir, "make", "test")
	assert.Contains(t, scaffoldtest.Run(t, dir, "make", "check"), " 0 violations", "capkit check of the release files")
}

// TestScaffoldCompilesAgainstTheLastRelease: a provider that this checkout's `capkit init` writes requires capkit's
// last release (scaffold.Release) unless --capkit-replace says otherwise, so the scaffold may use only the API of
// that release. The provider, pointed at the release's files, must build and vet (its tests included).
func TestScaffoldCompilesAgainstTheLastRelease(t *testing.T) {
	root, err := testenv.SourceDir("../..")
	require.NoError(t, err)
	release := extractRelease(t, root, scaffold.Release)
	files, err := scaffold.Init(scaffold.Options{Module: "example.com/acme/cluster-api-provider-acme", Provider: "acmecloud",
		Domain: "acme.example.com", CapkitReplace: release})
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, scaffold.Write(dir, files, false))
	scaffoldtest.Run(t, dir, "go", "mod", "tidy")
	scaffoldtest.Run(t, dir, "go", "build", "./...")
	scaffoldtest.Run(t, dir, "go", "vet", "./...")
}

// fix runs go fix ./... in dir and returns what it printed; go fix exits 0 when it applied fixes.
func fix(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("go", "fix", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go fix ./... in %s:\n%s", dir, out)
	return string(out)
}

// extractRelease writes the files of the commit that added release's heading to CHANGELOG.md (the release commit,
// as the API gate finds it) into a temporary folder and returns it.
func extractRelease(t *testing.T, root, release string) string {
	t.Helper()
	commits := strings.Fields(scaffoldtest.Run(t, root, "git", "log", "--format=%H", "--reverse",
		"-G^## "+strings.ReplaceAll(release, ".", `\.`)+"([[:space:]]|$)", "HEAD", "--", "CHANGELOG.md"))
	require.NotEmpty(t, commits, "no commit adds %q to CHANGELOG.md: a shallow clone? (git fetch --unshallow)", "## "+release)
	cmd := exec.Command("git", "archive", "--format=tar", commits[0])
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	archive, err := cmd.Output()
	require.NoError(t, err, "git archive %s: %s", commits[0], stderr.String())
	dest := t.TempDir()
	require.NoError(t, untar(bytes.NewReader(archive), dest))
	return dest
}

// untar writes the regular files and folders of a git archive into dest; anything else (a link) is refused.
func untar(r io.Reader, dest string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Join(dest, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(name, dest+string(filepath.Separator)) {
			return errors.New("cannot extract " + h.Name + ": outside the folder")
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, os.FileMode(h.Mode)&0o755)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeXGlobalHeader:
		default:
			return errors.New("cannot extract " + h.Name + ": not a file or folder")
		}
	}
}
