package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold"
)

// releaseHeadingRE is a release heading of CHANGELOG.md, as hack/apidiff.sh reads it.
var releaseHeadingRE = regexp.MustCompile(`(?m)^## (v[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?)(?:\s.*)?$`)

// TestVersionIsTheLastRelease keeps the version in the code and CHANGELOG.md's last release together.
func TestVersionIsTheLastRelease(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "CHANGELOG.md"))
	require.NoError(t, err)
	m := releaseHeadingRE.FindSubmatch(data)
	require.NotNil(t, m, "CHANGELOG.md names no release (## vX.Y.Z)")
	assert.Equal(t, string(m[1]), scaffold.Release, "scaffold.Release and CHANGELOG.md's first release heading must agree: a release commit changes both")
}

// withBuildInfo makes scaffold.ModuleVersion see info for the test.
func withBuildInfo(t *testing.T, info *debug.BuildInfo) {
	t.Helper()
	old := scaffold.ReadBuildInfo
	scaffold.ReadBuildInfo = func() (*debug.BuildInfo, bool) { return info, info != nil }
	t.Cleanup(func() { scaffold.ReadBuildInfo = old })
}

// capkitMod is capkit's module in build information.
func capkitMod(v, sum string) debug.Module {
	return debug.Module{Path: "github.com/capkit/capkit", Version: v, Sum: sum}
}

func TestRunVersion(t *testing.T) {
	tests := []struct {
		name     string
		info     *debug.BuildInfo
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "checkout build", info: &debug.BuildInfo{Main: capkitMod("(devel)", "")}, wantOut: "capkit " + scaffold.Release + "\n"},
		{name: "checkout build stamped from git", info: &debug.BuildInfo{Main: capkitMod("v0.1.1-0.20261128090000-0123456789ab+dirty", "")},
			wantOut: "capkit " + scaffold.Release + "\n"},
		{name: "go install of the release", info: &debug.BuildInfo{Main: capkitMod(scaffold.Release, "h1:x")}, wantOut: "capkit " + scaffold.Release + "\n"},
		{name: "go install of a commit", info: &debug.BuildInfo{Main: capkitMod("v0.1.1-0.20261128090000-0123456789ab", "h1:x")},
			wantOut: "capkit " + scaffold.Release + " (built from module github.com/capkit/capkit v0.1.1-0.20261128090000-0123456789ab)\n"},
		{name: "no build information", wantOut: "capkit " + scaffold.Release + "\n"},
		{name: "argument", args: []string{"extra"}, wantCode: 2, wantErr: `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withBuildInfo(t, tt.info)
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"version"}, tt.args...), &stdout, &stderr)
			assert.Equal(t, tt.wantCode, code, stderr.String())
			assert.Equal(t, tt.wantOut, stdout.String())
			assert.Contains(t, stderr.String(), tt.wantErr)
		})
	}
}

// TestInitRequiresTheReleasedVersion checks the go.mod that capkit init writes: the released capkit version in
// require, and a replace only with --capkit-replace.
func TestInitRequiresTheReleasedVersion(t *testing.T) {
	requireRE := func(v string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\tgithub\.com/capkit/capkit ` + regexp.QuoteMeta(v) + `$`)
	}
	replaceRE := regexp.MustCompile(`(?m)^replace `)
	tests := []struct {
		name        string
		info        *debug.BuildInfo
		args        []string
		wantVersion string
		wantReplace string // the whole replace line, or "" for none
	}{
		{name: "checkout build: the released version, no replace", info: &debug.BuildInfo{Main: capkitMod("(devel)", "")},
			wantVersion: scaffold.Release},
		{name: "checkout build stamped from git: the released version", info: &debug.BuildInfo{Main: capkitMod("v0.0.0-20261128090000-0123456789ab+dirty", "")},
			wantVersion: scaffold.Release},
		{name: "go install of a version: that version", info: &debug.BuildInfo{Main: capkitMod("v0.1.1-0.20261128090000-0123456789ab", "h1:x")},
			wantVersion: "v0.1.1-0.20261128090000-0123456789ab"},
		{name: "go tool capkit in a project: capkit's version there",
			info:        &debug.BuildInfo{Main: debug.Module{Path: "example.com/acme"}, Deps: []*debug.Module{ptr(capkitMod("v0.1.2", "h1:x"))}},
			wantVersion: "v0.1.2"},
		{name: "a replaced capkit: the released version",
			info:        &debug.BuildInfo{Main: debug.Module{Path: "example.com/acme"}, Deps: []*debug.Module{{Path: "github.com/capkit/capkit", Version: "v0.1.2", Replace: &debug.Module{Path: "../capkit"}}}},
			wantVersion: scaffold.Release},
		{name: "--capkit-version", info: &debug.BuildInfo{Main: capkitMod("(devel)", "")}, args: []string{"--capkit-version", "v0.2.0"},
			wantVersion: "v0.2.0"},
		{name: "--capkit-replace: the released version and the replace", info: &debug.BuildInfo{Main: capkitMod("(devel)", "")},
			args: []string{"--capkit-replace", "/src/capkit"}, wantVersion: scaffold.Release, wantReplace: "replace github.com/capkit/capkit => /src/capkit"},
		{name: "both", args: []string{"--capkit-version", "v0.3.0", "--capkit-replace", "../capkit"},
			wantVersion: "v0.3.0", wantReplace: "replace github.com/capkit/capkit => ../capkit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withBuildInfo(t, tt.info)
			dir := filepath.Join(t.TempDir(), "new")
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"init", dir, "--module", "example.com/acme", "--provider", "acme"}, tt.args...), &stdout, &stderr)
			require.Equal(t, 0, code, stderr.String())
			gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
			require.NoError(t, err)
			assert.Regexp(t, requireRE(tt.wantVersion), string(gomod))
			if tt.wantReplace == "" {
				assert.NotRegexp(t, replaceRE, string(gomod))
			} else {
				assert.Regexp(t, regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(tt.wantReplace)+`$`), string(gomod))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
