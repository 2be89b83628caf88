package clusterctl

import (
	"bytes"
	"hash/maphash"
	"regexp"
	"sort"
)

// shellAssignment matches where a shell script assigns a variable: NAME=… or NAME+=… (after export, local,
// readonly, declare or typeset and their flags, or alone), read [flags] NAME, and for NAME in. The name is the
// first non-empty group. The character before an assignment must end a word, so that ${NAME:=x} (clusterctl's) and
// --flag=… are not taken for one.
var shellAssignment = regexp.MustCompile(`(?:^|[\s;&|(])(?:(?:export|local|readonly|declare|typeset)(?:\s+-[A-Za-z]+)*\s+)?([A-Za-z_][A-Za-z0-9_]*)\+?=|` +
	`(?:^|[\s;&|(])read(?:\s+-[A-Za-z]+)*\s+([A-Za-z_][A-Za-z0-9_]*)|` +
	`(?:^|[\s;&|(])for\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b`)

// shellAssignments are the shell variables each YAML document of a text assigns, by hash of the name (hostile
// input may assign millions).
type shellAssignments struct {
	seed maphash.Seed
	// starts are the offsets where documents start, ascending; names[i] holds the names document i assigns.
	starts []int
	names  []map[uint64]struct{}
}

// documentStarts returns the offsets where the YAML documents of data start: 0, and each line that begins with
// "---".
func documentStarts(data []byte) []int {
	starts := []int{0}
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		if bytes.HasPrefix(data[i:], []byte("---")) {
			starts = append(starts, i)
		}
	}
	return starts
}

// findShellAssignments reads the shell assignments of every YAML document of data.
func findShellAssignments(data []byte) *shellAssignments {
	a := &shellAssignments{seed: maphash.MakeSeed(), starts: documentStarts(data)}
	a.names = make([]map[uint64]struct{}, len(a.starts))
	for pos := 0; pos < len(data); { // one match at a time: hostile input may hold millions
		m := shellAssignment.FindSubmatchIndex(data[pos:])
		if m == nil {
			break
		}
		doc := a.document(pos + m[0])
		for g := 1; g < len(m)/2; g++ {
			if m[2*g] < 0 {
				continue
			}
			if a.names[doc] == nil {
				a.names[doc] = map[uint64]struct{}{}
			}
			a.names[doc][maphash.Bytes(a.seed, data[pos+m[2*g]:pos+m[2*g+1]])] = struct{}{}
			break
		}
		pos += max(m[1], 1)
	}
	return a
}

// document returns the index of the document that holds offset at.
func (a *shellAssignments) document(at int) int {
	return sort.SearchInts(a.starts, at+1) - 1
}

// assignedInDocument reports whether a shell script in the YAML document that holds offset at assigns name.
func (s *varScanner) assignedInDocument(at int, name string) bool {
	if s.shell == nil {
		s.shell = findShellAssignments(s.data)
	}
	_, ok := s.shell.names[s.shell.document(at)][maphash.String(s.shell.seed, name)]
	return ok
}
