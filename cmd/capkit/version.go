package main

import (
	"fmt"
	"io"
	"regexp"
	"runtime/debug"

	"github.com/capkit/capkit/internal/scaffold"
)

// version is capkit's last release: what "capkit version" prints, and the capkit version that "capkit init" requires
// in the go.mod it writes when this program is not a module build of another version (see releasedVersion). It is
// the first "## vX.Y.Z" heading of CHANGELOG.md (a test checks that they agree): a release commit changes both.
const version = "v0.1.0"

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// moduleVersionRE matches a module version that a go.mod can require (build metadata such as +dirty excluded).
var moduleVersionRE = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

// moduleVersion returns the version of the capkit module this program was built from when the go command took it
// from the module cache: the main module of "go install github.com/capkit/capkit/cmd/capkit@VERSION", or a
// dependency ("go tool capkit" in a generated project). It returns "" for a build in a checkout (go run, go build:
// no checksum, and a version, if any, stamped from git), and for a replaced capkit.
func moduleVersion() string {
	info, ok := readBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range append([]*debug.Module{&info.Main}, info.Deps...) {
		if m != nil && m.Path == scaffold.CapkitModule && m.Replace == nil && m.Sum != "" && moduleVersionRE.MatchString(m.Version) {
			return m.Version
		}
	}
	return ""
}

// releasedVersion is the capkit version "capkit init" requires by default: the module version this program was
// built from (moduleVersion), else version.
func releasedVersion() string {
	if v := moduleVersion(); v != "" {
		return v
	}
	return version
}

// runVersion implements "capkit version": "capkit v0.1.0", and the module version it was built from when that
// differs (go install ...@a-commit).
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "capkit version: unexpected argument %q\nusage: capkit version\n", args[0])
		return 2
	}
	if v := moduleVersion(); v != "" && v != version {
		fmt.Fprintf(stdout, "capkit %s (built from module %s %s)\n", version, scaffold.CapkitModule, v)
		return 0
	}
	fmt.Fprintf(stdout, "capkit %s\n", version)
	return 0
}
