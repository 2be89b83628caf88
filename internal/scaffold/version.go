package scaffold

import (
	"regexp"
	"runtime/debug"
)

// Release is capkit's last release: what "capkit version" prints, and the capkit version a scaffold requires by
// default when this program is not a module build of another version (ReleasedVersion). It is the first
// "## vX.Y.Z" heading of CHANGELOG.md (a test checks that they agree): a release commit changes both.
const Release = "v0.2.0"

// ReadBuildInfo is debug.ReadBuildInfo; tests replace it.
var ReadBuildInfo = debug.ReadBuildInfo

// moduleVersionRE matches a module version that a go.mod can require (build metadata such as +dirty excluded).
var moduleVersionRE = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

// ModuleVersion returns the version of the capkit module this program was built from when the go command took it
// from the module cache: the main module of "go install github.com/capkit/capkit/cmd/capkit@VERSION", or a
// dependency ("go tool capkit" in a generated project, a Kubebuilder plugin installed from a version). It returns
// "" for a build in a checkout (go run, go build: no checksum, and a version, if any, stamped from git), and for a
// replaced capkit.
func ModuleVersion() string {
	info, ok := ReadBuildInfo()
	if !ok || info == nil {
		return ""
	}
	for _, m := range append([]*debug.Module{&info.Main}, info.Deps...) {
		if m != nil && m.Path == CapkitModule && m.Replace == nil && m.Sum != "" && moduleVersionRE.MatchString(m.Version) {
			return m.Version
		}
	}
	return ""
}

// ReleasedVersion is the capkit version a scaffold requires by default: the module version this program was
// built from (ModuleVersion), else Release.
func ReleasedVersion() string {
	if v := ModuleVersion(); v != "" {
		return v
	}
	return Release
}
