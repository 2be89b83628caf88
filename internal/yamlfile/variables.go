package yamlfile

import (
	"bytes"
	"strconv"
	"strings"
)

// WithVariables makes Read replace the clusterctl variable references of the text with placeholders before it parses
// the YAML, as clusterctl substitutes them before it parses a template or components file, so that text such as
// "sshAuthorizedKeys: [${VM_SSH_KEYS}]" (YAML only once substituted) is read. The placeholders are plain scalars, and
// Read puts each reference's text back where its placeholder ends up in the decoded values: a checker sees
// "${VM_SSH_KEYS}" where clusterctl would put a value, and File.Data and Document.Raw keep the original text. See
// substituteVariables for what is replaced.
func WithVariables() Option { return func(o *readOptions) { o.variables = true } }

// WithDefaultKind makes Read give a document without kind, or without apiVersion, the ones given, as Kubernetes'
// decoder does when it decodes into a typed object (clusterctl decodes metadata.yaml so): a missing kind becomes
// kind; a missing apiVersion becomes apiVersion.
func WithDefaultKind(apiVersion, kind string) Option {
	return func(o *readOptions) { o.defaultAPIVersion, o.defaultKind = apiVersion, kind }
}

// applyDefaultKind sets a missing or empty apiVersion and kind of obj to the defaults; other values are left to
// checkObject.
func (o *readOptions) applyDefaultKind(obj map[string]any) {
	if o.defaultKind == "" {
		return
	}
	for key, def := range map[string]string{"apiVersion": o.defaultAPIVersion, "kind": o.defaultKind} {
		if v, found := obj[key]; !found || v == nil || v == "" {
			obj[key] = def
		}
	}
}

// placeholderStem starts every placeholder; substituteVariables lengthens it until the text does not contain it.
const placeholderStem = "capkitvar"

// maxVariableNesting bounds ${A:=${B:=…}} nesting, so that hostile input cannot exhaust the stack.
const maxVariableNesting = 32

// placeholders maps the placeholders substituteVariables wrote to the references they stand for.
type placeholders struct {
	// prefix starts every placeholder and occurs nowhere in the original text.
	prefix string
	// refs are the references replaced; the placeholder of refs[i] is token(i, len(refs[i])), at least as long as
	// refs[i], so that putting a reference back never makes a value longer than the one that was parsed and bounded.
	refs []string
}

// substituteVariables returns data with each clusterctl variable reference replaced by a placeholder, and the
// placeholders; it returns nil when data has no reference. It reads references as clusterctl does: drone/envsubst
// after clusterctl turns "${ VAR }", "${ VAR}" and "${VAR }" into "${VAR}". A reference is "${NAME}", "${#NAME}" or
// "${NAME" followed by one of ":", "=", ",", "^", "/", "#", "%" and an argument up to the closing "}" (which covers
// ${VAR:=default}, ${VAR=default}, ${VAR:-default}, ${VAR:offset}, ${VAR/a/b}, …; references nested in it are part
// of it, and "$$" in it is no escape: ${A:=$${B}} is one reference, as drone/envsubst reads it); NAME is letters,
// digits and "_". Outside references "$$" is a literal "$" and is left as it is ("$" means nothing to YAML), as is
// "$VAR", which clusterctl does not substitute, and "${VAR-default}", on which clusterctl fails ("missing closing
// brace"). A reference that spans lines is left as it is, so that every line keeps its number. The scan is linear:
// after a malformed reference it goes on from where the reference failed, as clusterctl stops at the first one.
func substituteVariables(data []byte) ([]byte, *placeholders) {
	if !bytes.Contains(data, []byte("${")) {
		return nil, nil
	}
	p := &placeholders{prefix: uniquePrefix(data)}
	index := map[string]int{}
	var out bytes.Buffer
	out.Grow(len(data) + len(data)/8)
	last := 0 // data[last:] is not yet written to out
	for pos := 0; pos < len(data); {
		i := bytes.IndexByte(data[pos:], '$')
		if i < 0 {
			break
		}
		pos += i
		switch next := peek(data, pos+1); next {
		case '$':
			pos += 2
			continue
		case '{':
		default:
			pos++
			continue
		}
		end, ok := referenceEnd(data, pos, 0)
		if !ok {
			pos = max(end, pos+2)
			continue
		}
		ref := string(data[pos:end])
		j, seen := index[ref]
		if !seen {
			j = len(p.refs)
			index[ref] = j
			p.refs = append(p.refs, ref)
		}
		out.Write(data[last:pos])
		out.WriteString(p.token(j, len(ref)))
		pos, last = end, end
	}
	if len(p.refs) == 0 {
		return nil, nil
	}
	out.Write(data[last:])
	return out.Bytes(), p
}

// referenceEnd returns the offset after the reference whose "${" is at start, and true; or, for text that is no
// reference clusterctl substitutes (or one that spans lines), the offset where reading it failed and false.
func referenceEnd(data []byte, start, depth int) (int, bool) {
	pos := start + 2
	if depth >= maxVariableNesting {
		return pos, false
	}
	if end, ok := legacyReference(data, pos); ok {
		return end, true
	}
	if peek(data, pos) == '#' { // ${#NAME}, the length of NAME
		pos++
	}
	nameStart := pos
	for pos < len(data) && isNameByte(data[pos]) {
		pos++
	}
	if pos == nameStart {
		return pos, false
	}
	switch peek(data, pos) {
	case '}':
		return pos + 1, true
	case ':', '=', ',', '^', '/', '#', '%':
	default:
		return pos, false
	}
	for pos < len(data) {
		switch c := data[pos]; {
		case c == '}':
			return pos + 1, true
		case c == '\n' || c == '\r':
			return pos, false
		case c == '\\' && (peek(data, pos+1) == '\\' || peek(data, pos+1) == '/'):
			pos += 2
		case c == '$' && peek(data, pos+1) == '{':
			end, ok := referenceEnd(data, pos, depth+1)
			if !ok {
				return end, false
			}
			pos = end
		default:
			pos++
		}
	}
	return pos, false
}

// legacyReference reads "${ NAME }", "${ NAME}" or "${NAME }" (spaces or tabs on at least one side) from pos, just
// after "${", which clusterctl rewrites to "${NAME}" before substituting; it returns the offset after the "}".
func legacyReference(data []byte, pos int) (int, bool) {
	lead := skipBlanks(data, pos)
	nameEnd := lead
	for nameEnd < len(data) && isNameByte(data[nameEnd]) {
		nameEnd++
	}
	trail := skipBlanks(data, nameEnd)
	if nameEnd == lead || lead == pos && trail == nameEnd || peek(data, trail) != '}' {
		return 0, false
	}
	return trail + 1, true
}

func skipBlanks(data []byte, pos int) int {
	for pos < len(data) && (data[pos] == ' ' || data[pos] == '\t') {
		pos++
	}
	return pos
}

func peek(data []byte, i int) byte {
	if i < len(data) {
		return data[i]
	}
	return 0
}

// isNameByte reports whether c can be part of a variable name: drone/envsubst takes letters, digits and "_"
// (non-ASCII letters are left out here, which leaves such a reference as it is).
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// uniquePrefix returns placeholderStem followed by more "x" than follow it anywhere in data, so that the prefix does
// not occur in data.
func uniquePrefix(data []byte) string {
	longest := -1
	for rest := data; ; {
		i := bytes.Index(rest, []byte(placeholderStem))
		if i < 0 {
			break
		}
		rest = rest[i+len(placeholderStem):]
		n := 0
		for n < len(rest) && rest[n] == 'x' {
			n++
		}
		longest = max(longest, n)
		rest = rest[n:]
	}
	return placeholderStem + strings.Repeat("x", longest+1)
}

// token returns the placeholder of reference j, padded with "z" to at least length n: the prefix, j and "z".
func (p *placeholders) token(j, n int) string {
	t := p.prefix + strconv.Itoa(j) + "z"
	if len(t) < n {
		t += strings.Repeat("z", n-len(t))
	}
	return t
}

// restore returns s with each placeholder replaced by the reference it stands for.
func (p *placeholders) restore(s string) string {
	if p == nil || !strings.Contains(s, p.prefix) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, p.prefix)
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		rest := s[i+len(p.prefix):]
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		j, err := strconv.Atoi(rest[:n])
		if err == nil && j < len(p.refs) {
			if token := p.token(j, len(p.refs[j])); strings.HasPrefix(s[i:], token) {
				b.WriteString(p.refs[j])
				s = s[i+len(token):]
				continue
			}
		}
		b.WriteString(p.prefix)
		s = rest
	}
	b.WriteString(s)
	return b.String()
}

// restoreValue puts the references back into a decoded JSON value: its strings and map keys.
func (p *placeholders) restoreValue(v any) any {
	switch t := v.(type) {
	case string:
		return p.restore(t)
	case []any:
		for i := range t {
			t[i] = p.restoreValue(t[i])
		}
	case map[string]any:
		for k, val := range t {
			val = p.restoreValue(val)
			if nk := p.restore(k); nk != k {
				delete(t, k)
				t[nk] = val
				continue
			}
			t[k] = val
		}
	}
	return v
}
