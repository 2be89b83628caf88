package clusterctl_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"

	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

// forgedLine clears the screen and starts a forged finding line.
const forgedLine = "x\x1b[2J\nfake.yaml:1: all good"

// TestFindingStringIsOnePrintableLine: files, names and reasons from the input are printed on one line of printable
// text; anything else is quoted (names) or escaped (messages), never written raw.
func TestFindingStringIsOnePrintableLine(t *testing.T) {
	tests := map[string]struct {
		s    interface{ String() string }
		want string
	}{
		"object name": {
			clusterctl.Finding{File: "crds.yaml", Line: 3, Violation: lint.Violation{Rule: "crd.scope", Object: "CustomResourceDefinition/" + forgedLine, Path: "spec.scope", Message: "wrong"}},
			`crds.yaml:3: error: "CustomResourceDefinition/x\x1b[2J\nfake.yaml:1: all good": crd.scope: spec.scope: wrong`,
		},
		"invalid UTF-8": {
			clusterctl.Finding{File: "a\xffb.yaml", Violation: lint.Violation{Rule: "r", Message: "bad \xff byte"}},
			`"a\xffb.yaml": error: r: bad \xff byte`,
		},
		"file": {
			clusterctl.Finding{File: "dir/\x1b]0;title\x07.yaml", Line: 1, Violation: lint.Violation{Rule: "r", Message: "m"}},
			`"dir/\x1b]0;title\a.yaml":1: error: r: m`,
		},
		"printable text stays as it is": {
			clusterctl.Finding{File: "relé/crds.yaml", Line: 2, Violation: lint.Violation{Rule: "r", Object: "Kind/naïve", Message: `label "é" is wrong…`}},
			`relé/crds.yaml:2: error: Kind/naïve: r: label "é" is wrong…`,
		},
		"not checked": {
			clusterctl.Unclassified{File: forgedLine, Line: 4, Reason: "not checked: v1 " + forgedLine + " in a metadata file"},
			`"x\x1b[2J\nfake.yaml:1: all good":4: not checked: v1 x\x1b[2J fake.yaml:1: all good in a metadata file`,
		},
	}
	notPrintable := func(r rune) bool { return !unicode.IsPrint(r) || r == unicode.ReplacementChar }
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := tt.s.String()
			assert.Equal(t, tt.want, got)
			assert.Equal(t, -1, strings.IndexFunc(got, notPrintable), "%q is not one printable line", got)
		})
	}

	err := &clusterctl.PositionError{File: forgedLine, Line: 2, Err: errors.New("cannot decode \x1b[2J\nthis")}
	assert.Equal(t, `"x\x1b[2J\nfake.yaml:1: all good":2: cannot decode \x1b[2J this`, err.Error())
	assert.Equal(t, -1, strings.IndexFunc(err.Error(), notPrintable))
}
