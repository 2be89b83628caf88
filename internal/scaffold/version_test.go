package scaffold_test

import (
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold"
)

// TestDefaultCapkitVersion: a scaffold made without CapkitVersion requires the capkit version the program was
// installed from, else capkit's last release, so that the plugin built in a checkout scaffolds a project that
// builds against a release, as capkit init does.
func TestDefaultCapkitVersion(t *testing.T) {
	capkit := func(v, sum string) debug.Module {
		return debug.Module{Path: scaffold.CapkitModule, Version: v, Sum: sum}
	}
	tests := []struct {
		name    string
		info    *debug.BuildInfo
		replace string
		want    string
	}{
		{name: "checkout build", info: &debug.BuildInfo{Main: capkit("(devel)", "")}, want: scaffold.Release},
		{name: "checkout build stamped from git", info: &debug.BuildInfo{Main: capkit("v0.1.1-0.20261128090000-0123456789ab+dirty", "")}, want: scaffold.Release},
		{name: "no build information", want: scaffold.Release},
		{name: "plugin installed from a version", info: &debug.BuildInfo{Main: debug.Module{Path: "example.com/plugin"},
			Deps: []*debug.Module{{Path: scaffold.CapkitModule, Version: "v0.2.3", Sum: "h1:x"}}}, want: "v0.2.3"},
		{name: "a replaced capkit", info: &debug.BuildInfo{Main: debug.Module{Path: "example.com/plugin"},
			Deps: []*debug.Module{{Path: scaffold.CapkitModule, Version: "v0.2.3", Sum: "h1:x", Replace: &debug.Module{Path: "../capkit"}}}}, want: scaffold.Release},
		{name: "checkout build with a replace", info: &debug.BuildInfo{Main: capkit("(devel)", "")}, replace: "../capkit", want: scaffold.Release},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := scaffold.ReadBuildInfo
			scaffold.ReadBuildInfo = func() (*debug.BuildInfo, bool) { return tt.info, tt.info != nil }
			t.Cleanup(func() { scaffold.ReadBuildInfo = old })
			files, err := scaffold.Init(scaffold.Options{Module: "example.com/acme", Provider: "acme", CapkitReplace: tt.replace})
			require.NoError(t, err)
			assert.Regexp(t, regexp.MustCompile(`(?m)^\s*`+regexp.QuoteMeta(scaffold.CapkitModule+" "+tt.want)+`$`), string(files["go.mod"]))
		})
	}
}
