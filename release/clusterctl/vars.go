package clusterctl

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/capkit/capkit/contract/lint"
)

// Rule identifiers of the clusterctl variable checks.
const (
	// RuleVariableSyntax: a "${" that clusterctl cannot parse; clusterctl then rejects the whole file.
	RuleVariableSyntax = "clusterctl.variable-syntax"
	// RuleVariableUnsupported: a form clusterctl parses differently than bash would, or does not evaluate.
	RuleVariableUnsupported = "clusterctl.variable-unsupported"
	// RuleVariableUnbraced: an upper-case $VAR without braces that no shell script of the same YAML document assigns.
	// clusterctl leaves $VAR as it is (drone/envsubst substitutes only ${VAR}) and does not fail on it, so this is a
	// note: a clusterctl variable written so is never filled in.
	RuleVariableUnbraced = "clusterctl.variable-unbraced"
)

// Variable is a clusterctl variable used in a components or cluster template file.
type Variable struct {
	// Name is the variable's name, e.g. "CLUSTER_NAME".
	Name string
	// Line is the 1-based line of its first use.
	Line int
	// HasDefault is true when a use gives a default, e.g. ${WORKER_MACHINE_COUNT:=1}; clusterctl does not ask
	// for such a variable.
	HasDefault bool
}

// VariableIssue is a problem with one variable reference.
type VariableIssue struct {
	// Line is the 1-based line of the reference.
	Line int
	// Rule is RuleVariableSyntax, RuleVariableUnsupported or RuleVariableUnbraced.
	Rule string
	// Message says what is wrong and how to write it.
	Message string
}

// shellVariables are environment variables of shell scripts that templates embed (e.g. in preKubeadmCommands);
// a bare $HOME there is meant for the shell, not for clusterctl.
var shellVariables = []string{"HOME", "PATH", "PWD", "OLDPWD", "USER", "HOSTNAME", "SHELL", "IFS", "LANG", "TERM",
	"TMPDIR", "UID", "EUID", "PPID", "RANDOM", "LINENO", "SECONDS", "OSTYPE", "BASH_SOURCE", "KUBECONFIG"}

// ScanVariables finds the clusterctl variables in the text of a components or cluster template file, as clusterctl
// reads them (drone/envsubst after turning "${ VAR }" into "${VAR}"): ${VAR}, ${VAR:=default}, ${VAR:-default},
// ${VAR=default}, the bash string functions envsubst evaluates (${VAR^^}, ${VAR:0:3}, ${VAR/a/b}, ${#VAR}, …),
// and "$$" for a literal "$". It reports as issues: a "${" clusterctl cannot parse (which makes clusterctl reject
// the whole file), ${VAR-default} (drone/envsubst fails on it: "missing closing brace"), ${VAR:?msg} and ${VAR:+alt} (not
// evaluated), and an upper-case $VAR without braces (left as it is) unless it is a common shell variable or a shell
// variable that a script in the same YAML document assigns (NAME=…, export NAME=…, read NAME, for NAME in …).
func ScanVariables(data []byte) ([]Variable, []VariableIssue) {
	s := scanVariables(data, scanLimits{maxIssues: -1, maxVars: -1})
	return s.vars, s.issues
}

// scanLimits bound what scanVariables keeps of hostile input, where every few bytes can be a variable or an issue.
type scanLimits struct {
	// maxIssues is how many issues to keep (< 0: all); the rest are counted in moreIssues.
	maxIssues int
	// maxVars is how many distinct variables to keep (< 0: all); the distinct names of the rest are counted in
	// moreVars. noVars keeps and counts none.
	maxVars int
	noVars  bool
	// filter, when set, is called for every use of a variable: a use it returns false for is neither kept nor
	// counted.
	filter func(name string) bool
}

// scanVariables is ScanVariables within limits.
func scanVariables(data []byte, limits scanLimits) *varScanner {
	s := &varScanner{data: data, seen: map[string]int{}, lineNo: 1, limits: limits}
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c != '$' {
			s.pos++
			continue
		}
		switch next := s.peekAt(s.pos + 1); {
		case next == '$':
			s.pos += 2 // "$$" is a literal "$"
		case next == '{':
			start := s.pos
			s.pos += 2
			s.expr(start, 0) // after a malformed reference, go on from where it failed: no rescan
		case isUpperStart(next):
			s.unbraced()
		default:
			s.pos++
		}
	}
	return s
}

type varScanner struct {
	data   []byte
	pos    int
	vars   []Variable
	seen   map[string]int
	issues []VariableIssue
	lineAt int // offset up to which lineNo counts lines
	lineNo int

	limits       scanLimits
	moreIssues   int
	syntaxIssues int                 // issues of RuleVariableSyntax, kept or not
	moreVars     map[uint64]struct{} // hashes of the distinct names beyond limits.maxVars
	seed         maphash.Seed
	// shell holds the shell variables each YAML document assigns, made at the first unbraced $VAR.
	shell *shellAssignments
}

func (s *varScanner) peekAt(i int) byte {
	if i < len(s.data) {
		return s.data[i]
	}
	return 0
}

// line returns the 1-based line of byte offset at; offsets only grow, so it counts incrementally.
func (s *varScanner) line(at int) int {
	if at < s.lineAt {
		s.lineAt, s.lineNo = 0, 1
	}
	s.lineNo += bytes.Count(s.data[s.lineAt:at], []byte("\n"))
	s.lineAt = at
	return s.lineNo
}

func (s *varScanner) issue(at int, rule, format string, args ...any) {
	if rule == RuleVariableSyntax {
		s.syntaxIssues++
	}
	if s.limits.maxIssues >= 0 && len(s.issues) >= s.limits.maxIssues {
		s.moreIssues++
		return
	}
	s.issues = append(s.issues, VariableIssue{Line: s.line(at), Rule: rule, Message: fmt.Sprintf(format, args...)})
}

func (s *varScanner) use(at int, name string, hasDefault bool) {
	if s.limits.noVars || s.limits.filter != nil && !s.limits.filter(name) {
		return
	}
	if i, ok := s.seen[name]; ok {
		s.vars[i].HasDefault = s.vars[i].HasDefault || hasDefault
		return
	}
	if s.limits.maxVars >= 0 && len(s.vars) >= s.limits.maxVars {
		if s.moreVars == nil {
			s.moreVars, s.seed = map[uint64]struct{}{}, maphash.MakeSeed()
		}
		s.moreVars[maphash.String(s.seed, name)] = struct{}{}
		return
	}
	s.seen[name] = len(s.vars)
	s.vars = append(s.vars, Variable{Name: name, Line: s.line(at), HasDefault: hasDefault})
}

// snippet returns the text of a reference from start for messages, at most to the end of its line.
func (s *varScanner) snippet(start, end int) string {
	end = min(end, len(s.data))
	text := string(s.data[start:end])
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return truncate(text, 60)
}

// unbraced handles $NAME without braces.
func (s *varScanner) unbraced() {
	start := s.pos
	s.pos++
	for s.pos < len(s.data) && isUpperIdent(s.data[s.pos]) {
		s.pos++
	}
	name := string(s.data[start+1 : s.pos])
	if slices.Contains(shellVariables, name) || s.assignedInDocument(start, name) {
		return
	}
	s.issue(start, RuleVariableUnbraced, "$%s is not assigned in this object's scripts and clusterctl leaves it as it is (it substitutes only ${%s}): write ${%s} if it is a clusterctl variable",
		name, name, name)
}

// expr parses the reference whose "${" is at start, with s.pos after it; it reports false when the reference is
// malformed (the issue is recorded).
func (s *varScanner) expr(start, depth int) bool {
	bad := func(why string) bool {
		s.issue(start, RuleVariableSyntax, "%q: %s; clusterctl rejects the whole file with \"bad substitution\"", s.snippet(start, s.pos+1), why)
		return false
	}
	if depth >= maxVariableNesting {
		return bad(fmt.Sprintf("references nested more than %d deep", maxVariableNesting))
	}
	if s.peekAt(s.pos) == '#' { // ${#VAR}, the length of VAR
		s.pos++
	}
	// clusterctl first rewrites "${ VAR }", "${ VAR}" and "${VAR }" to "${VAR}".
	lead := s.skipSpaces()
	nameStart := s.pos
	for s.pos < len(s.data) && isEnvsubstIdent(s.data[s.pos]) {
		s.pos++
	}
	name := string(s.data[nameStart:s.pos])
	trail := s.skipSpaces()
	if (lead || trail) && s.peekAt(s.pos) != '}' {
		return bad("spaces are allowed around a plain variable name only, as in ${ NAME }")
	}
	if name == "" {
		return bad("no variable name after ${")
	}
	if base, def, ok := strings.Cut(name, "-"); ok {
		s.use(start, name, false)
		s.issue(start, RuleVariableUnsupported, "%q makes clusterctl reject the file (drone/envsubst has no ${VAR-default}: \"missing closing brace\"): write ${%s:-%s} or ${%s:=%s}",
			s.snippet(start, s.pos+1), base, def, base, def)
		return s.argument(start, depth, bad)
	}
	switch op := s.peekAt(s.pos); op {
	case '}':
		s.pos++
		s.use(start, name, false)
		return true
	case ':':
		switch s.peekAt(s.pos + 1) {
		case '=', '-':
			s.pos += 2
			s.use(start, name, true)
			return s.argument(start, depth, bad)
		case '?', '+':
			op := s.peekAt(s.pos + 1)
			s.pos += 2
			s.use(start, name, false)
			if !s.argument(start, depth, bad) {
				return false
			}
			s.issue(start, RuleVariableUnsupported, "%q: clusterctl (drone/envsubst) does not evaluate ${VAR:%c…}: use ${%s}, ${%s:-default} or ${%s:=default}",
				s.snippet(start, s.pos), op, name, name, name)
			return true
		}
		s.use(start, name, false) // ${VAR:offset} or ${VAR:offset:length}
		return s.argument(start, depth, bad)
	case '=':
		s.pos++
		s.use(start, name, true)
		return s.argument(start, depth, bad)
	case '^', ',', '/', '#', '%':
		s.use(start, name, false)
		return s.argument(start, depth, bad)
	case 0, '\n', '\r':
		return bad(fmt.Sprintf("no closing } after the variable name %q", name))
	}
	return bad(fmt.Sprintf("unexpected %q after the variable name %q", s.data[s.pos], name))
}

// argument reads the rest of a function reference up to its closing brace; nested references are parsed too.
func (s *varScanner) argument(start, depth int, bad func(string) bool) bool {
	for s.pos < len(s.data) {
		switch {
		case s.data[s.pos] == '}':
			s.pos++
			return true
		case s.data[s.pos] == '$' && s.peekAt(s.pos+1) == '{':
			nested := s.pos
			s.pos += 2
			if !s.expr(nested, depth+1) {
				return false
			}
		default:
			s.pos++
		}
	}
	return bad("no closing }")
}

func (s *varScanner) skipSpaces() bool {
	moved := false
	for s.pos < len(s.data) && (s.data[s.pos] == ' ' || s.data[s.pos] == '\t') {
		s.pos++
		moved = true
	}
	return moved
}

// maxVariableNesting bounds ${A:=${B:=…}} nesting, so that hostile input cannot exhaust the stack.
const maxVariableNesting = 32

// isEnvsubstIdent reports whether c can be part of a variable name for drone/envsubst (letters, digits, _ and -;
// non-ASCII letters are left out, which only makes a name end earlier).
func isEnvsubstIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func isUpperStart(c byte) bool { return c >= 'A' && c <= 'Z' || c == '_' }

func isUpperIdent(c byte) bool { return isUpperStart(c) || c >= '0' && c <= '9' }

// checkFileVariables reports the variable issues of a file as findings at the object that holds them: the first
// ones up to the file's limit of findings, and how many more there are.
func checkFileVariables(f *YAMLFile) (Findings, int) {
	s := scanVariables(f.Data, scanLimits{maxIssues: findingsLimit(f), noVars: true})
	out := make(Findings, 0, len(s.issues))
	for _, is := range s.issues {
		out = append(out, Finding{File: f.Name, Line: is.Line, Violation: lint.Violation{Rule: is.Rule, Object: objectAt(f, is.Line), Message: is.Message}})
	}
	return out, s.moreIssues
}
