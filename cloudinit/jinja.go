package cloudinit

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// maxVarSize bounds the value of a jinja variable, in bytes: host names are at most 253 bytes,
// instance IDs and regions far less.
const maxVarSize = 4096

var (
	// templateHeaderRE matches cloud-init's template header line, "## template: jinja".
	templateHeaderRE = regexp.MustCompile(`(?i)^##\s*template:(.*)$`)
	// jinjaNameRE matches the variable references this package substitutes.
	jinjaNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	// identifierRE matches the names that errors may show: a template type.
	identifierRE = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)
	// shellWordRE matches the values that a shell command line takes as one literal word.
	shellWordRE = regexp.MustCompile(`^[A-Za-z0-9._:@%+,=/-]+$`)
)

// templateHeader reports whether data starts with a "## template:" line and returns the
// template type ("jinja") and the data after that line.
func templateHeader(data []byte) (kind string, rest []byte, ok bool) {
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	m := templateHeaderRE.FindSubmatch(bytes.TrimRight(line, "\r"))
	if m == nil {
		return "", data, false
	}
	return strings.ToLower(strings.TrimSpace(string(m[1]))), rest, true
}

// lookupVar finds a variable: the exact dotted name first, then its last segment, so that
// {"local_hostname": "n1"} serves {{ v1.local_hostname }} and {{ ds.meta_data.local_hostname }}.
func lookupVar(vars map[string]string, name string) (string, bool) {
	if v, ok := vars[name]; ok {
		return v, true
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		v, ok := vars[name[i+1:]]
		return v, ok
	}
	return "", false
}

// jinjaVars are the variables of one template. The template's {{ name }} expressions are replaced by
// tokens, prefix + index + "_", made of letters, digits and '_' only, which every YAML scalar style
// takes as they are and the template text does not hold. The document is then parsed, and the values
// are put in place of the tokens in the parsed scalars (see decoder.value): a value is data of the
// scalar it stands in and cannot add or change YAML structure. In a shell command line or script, where
// the text is code, a value must be one plain word (expand with shell set).
type jinjaVars struct {
	prefix string
	refs   []jinjaRef // by token index
}

// jinjaRef is one {{ name }} expression of a template.
type jinjaRef struct {
	name  string // as written, for example "ds.meta_data.local_hostname"
	value string
}

// tokenPrefix is the start of every token; a template that holds it gets a longer prefix.
const tokenPrefix = "capkitjinja"

// tokenizeJinja replaces the {{ name }} expressions of a template by tokens and drops {# comments #},
// honouring the "-" whitespace control of jinja, and nothing else: statements ({% %}), filters and any
// other expression are errors, which name the line but never show the text of the expression. Like
// jinja with cloud-init's settings, line endings become "\n" and one trailing newline is removed.
func tokenizeJinja(src string, vars map[string]string) (string, *jinjaVars, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	lineAt := func(off int) int { return strings.Count(src[:off], "\n") + 1 }
	var (
		text   []byte // the template without its tags
		at     []int  // where in text each variable goes
		refs   []jinjaRef
		i      int
		closed bool
	)
	for !closed {
		j := nextTag(src, i)
		if j < 0 {
			text = append(text, src[i:]...)
			closed = true
			continue
		}
		text = append(text, src[i:j]...)
		open := src[j : j+2]
		if open == "{%" {
			return "", nil, fmt.Errorf("jinja line %d: statements ({%% ... %%}) are not supported: %w", lineAt(j), ErrUnsupported)
		}
		closing := "}}"
		if open == "{#" {
			closing = "#}"
		}
		k := strings.Index(src[j+2:], closing)
		if k < 0 {
			return "", nil, fmt.Errorf("jinja line %d: %s is not closed by %s: %w", lineAt(j), open, closing, ErrInvalid)
		}
		inner := src[j+2 : j+2+k]
		i = j + 2 + k + 2
		if strings.HasPrefix(inner, "-") {
			// Whitespace of the template before the tag goes, never a value or what precedes it.
			floor := 0
			if len(at) > 0 {
				floor = at[len(at)-1]
			}
			text = text[:floor+len(bytes.TrimRight(text[floor:], " \t\n"))]
			inner = inner[1:]
		}
		if strings.HasSuffix(inner, "-") {
			inner = inner[:len(inner)-1]
			for i < len(src) && strings.IndexByte(" \t\n", src[i]) >= 0 {
				i++
			}
		}
		if open == "{#" {
			continue
		}
		name := strings.TrimSpace(inner)
		if !jinjaNameRE.MatchString(name) {
			return "", nil, fmt.Errorf("jinja line %d: an expression that is not a variable name (filters and expressions are not supported): %w", lineAt(j), ErrUnsupported)
		}
		v, ok := lookupVar(vars, name)
		if !ok {
			return "", nil, fmt.Errorf("jinja line %d: %w %s", lineAt(j), ErrUndeclaredVariable, show(name))
		}
		at = append(at, len(text))
		refs = append(refs, jinjaRef{name: name, value: v})
	}
	jv := &jinjaVars{prefix: uniquePrefix(string(text)), refs: refs}
	var out strings.Builder
	out.Grow(len(text) + len(refs)*(len(jv.prefix)+8))
	last := 0
	for n, off := range at {
		out.Write(text[last:off])
		out.WriteString(jv.prefix + strconv.Itoa(n) + "_")
		last = off
	}
	out.Write(text[last:])
	return strings.TrimSuffix(out.String(), "\n"), jv, nil
}

// uniquePrefix returns tokenPrefix followed by enough 'x' that text does not hold it. A token
// cannot overlap text to form the prefix either: the prefix holds its first letter only once.
func uniquePrefix(text string) string {
	longest := -1
	for rest := text; ; {
		i := strings.Index(rest, tokenPrefix)
		if i < 0 {
			break
		}
		rest = rest[i+len(tokenPrefix):]
		n := len(rest) - len(strings.TrimLeft(rest, "x"))
		longest = max(longest, n)
	}
	return tokenPrefix + strings.Repeat("x", longest+1)
}

// has reports whether s holds a token.
func (v *jinjaVars) has(s string) bool { return v != nil && strings.Contains(s, v.prefix) }

// errExpandLimit is returned by expand when the result would exceed its limit; callers name the limit.
var errExpandLimit = fmt.Errorf("jinja values exceed a limit: %w", ErrTooLarge)

// expand replaces the tokens in s by the values of their variables, failing with errExpandLimit once
// the result is longer than limit bytes, or with a *FieldError without a path. With shell set, s is a shell command line or script, and
// every value must be one word of letters, digits and ._:@%+,=/-, so that it can neither end the word
// nor be expanded.
func (v *jinjaVars) expand(s string, shell bool, limit int) (string, error) {
	if !v.has(s) {
		return s, nil
	}
	var out strings.Builder
	for {
		i := strings.Index(s, v.prefix)
		if i < 0 {
			if out.Len()+len(s) > limit {
				return "", errExpandLimit
			}
			out.WriteString(s)
			return out.String(), nil
		}
		if out.Len()+i > limit {
			return "", errExpandLimit
		}
		out.WriteString(s[:i])
		n, size, ok := v.token(s[i:])
		if !ok {
			// Tokens are generated whole and the template does not hold the prefix.
			return "", &FieldError{Msg: "jinja token is malformed", Err: ErrInvalid}
		}
		s = s[i+size:]
		ref := v.refs[n]
		if shell && !shellWordRE.MatchString(ref.value) {
			msg := "jinja variable " + show(ref.name) + " is not one word of letters, digits and ._:@%+,=/- as a shell command line needs"
			return "", &FieldError{Msg: msg, Err: ErrInvalid}
		}
		if out.Len()+len(ref.value) > limit {
			return "", errExpandLimit
		}
		out.WriteString(ref.value)
	}
}

// token reads the token at the start of s: its index and its length.
func (v *jinjaVars) token(s string) (n, size int, ok bool) {
	rest, ok := strings.CutPrefix(s, v.prefix)
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if !ok || digits == 0 || digits > 9 || digits == len(rest) || rest[digits] != '_' {
		return 0, 0, false
	}
	n, err := strconv.Atoi(rest[:digits])
	if err != nil || n >= len(v.refs) {
		return 0, 0, false
	}
	return n, len(v.prefix) + digits + 1, true
}

// firstName returns the name of the first variable in s, which holds a token, cut to 64 bytes.
func (v *jinjaVars) firstName(s string) string {
	n, _, ok := v.token(s[strings.Index(s, v.prefix):])
	if !ok {
		return "?"
	}
	if name := v.refs[n].name; len(name) > 64 {
		return name[:64] + "..."
	}
	return v.refs[n].name
}

// nextTag returns the offset of the next "{{", "{%" or "{#" at or after i, or -1.
func nextTag(s string, i int) int {
	for {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 || i+j+1 >= len(s) {
			return -1
		}
		switch s[i+j+1] {
		case '{', '%', '#':
			return i + j
		}
		i += j + 1
	}
}

// checkVars rejects variable values that are not text of one line (a control character or bytes
// that are not UTF-8) or longer than maxVarSize bytes. Where a value lands decides what else it may
// hold: see jinjaVars.
func checkVars(vars map[string]string) error {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if hasControl(vars[k]) {
			return fmt.Errorf("jinja variable %s: value holds a control character or is not UTF-8: %w", show(k), ErrInvalid)
		}
		if len(vars[k]) > maxVarSize {
			return fmt.Errorf("jinja variable %s: value is %d bytes, more than %d: %w", show(k), len(vars[k]), maxVarSize, ErrTooLarge)
		}
	}
	return nil
}
