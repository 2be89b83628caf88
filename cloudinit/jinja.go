package cloudinit

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

var (
	// templateHeaderRE matches cloud-init's template header line, "## template: jinja".
	templateHeaderRE = regexp.MustCompile(`(?i)^##\s*template:(.*)$`)
	// jinjaNameRE matches the variable references this package substitutes.
	jinjaNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
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

// renderJinja substitutes {{ name }} expressions and drops {# comments #}, honouring the
// "-" whitespace control of jinja, and nothing else: statements ({% %}), filters and any
// other expression are errors. Like jinja with cloud-init's settings, line endings become
// "\n" and one trailing newline is removed.
func renderJinja(src string, vars map[string]string) (string, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	out := make([]byte, 0, len(src))
	lineAt := func(off int) int { return strings.Count(src[:off], "\n") + 1 }
	i := 0
	for {
		j := nextTag(src, i)
		if j < 0 {
			out = append(out, src[i:]...)
			break
		}
		out = append(out, src[i:j]...)
		open := src[j : j+2]
		if open == "{%" {
			return "", fmt.Errorf("jinja line %d: statements ({%% ... %%}) are not supported: %w", lineAt(j), ErrUnsupported)
		}
		closing := "}}"
		if open == "{#" {
			closing = "#}"
		}
		k := strings.Index(src[j+2:], closing)
		if k < 0 {
			return "", fmt.Errorf("jinja line %d: %s is not closed by %s: %w", lineAt(j), open, closing, ErrInvalid)
		}
		inner := src[j+2 : j+2+k]
		i = j + 2 + k + 2
		if strings.HasPrefix(inner, "-") {
			out = bytes.TrimRight(out, " \t\n")
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
			return "", fmt.Errorf("jinja line %d: expression %s is not a variable name (filters and expressions are not supported): %w", lineAt(j), show(name), ErrUnsupported)
		}
		v, ok := lookupVar(vars, name)
		if !ok {
			return "", fmt.Errorf("jinja line %d: %w %s", lineAt(j), ErrUndeclaredVariable, show(name))
		}
		out = append(out, v...)
	}
	return strings.TrimSuffix(string(out), "\n"), nil
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

// checkVars rejects variable values that would change the structure of the YAML document
// they are substituted into.
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
	}
	return nil
}
