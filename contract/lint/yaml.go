package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/capkit/capkit/contract/internal/jsonvalue"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// ErrMalformed is wrapped by every error about YAML that cannot be read as Kubernetes objects: bad syntax, a
// document that is a list or a scalar instead of a map, or a document without apiVersion or kind.
var ErrMalformed = errors.New("malformed YAML")

// ErrTooLarge is returned by ReadYAML for input larger than the size limit (DefaultMaxYAMLBytes unless
// WithMaxBytes says otherwise).
var ErrTooLarge = errors.New("YAML input too large")

// DefaultMaxYAMLBytes is the default size limit of ReadYAML: 32 MiB, far above any real CRD or clusterctl file.
const DefaultMaxYAMLBytes int64 = 32 << 20

// Document is one YAML document of a file, decoded into an unstructured Kubernetes object.
type Document struct {
	// File is the name of the file the document comes from.
	File string
	// Line is the 1-based line of the document's first field, the line to report about the object.
	Line int
	// StartLine is the 1-based line where the document's text starts (after its "---" separator).
	StartLine int
	// Raw is the document's text, comments included.
	Raw []byte
	// Object is the decoded object; its apiVersion and kind are set.
	Object *unstructured.Unstructured
}

// Position returns "file:line" for messages.
func (d Document) Position() string { return d.File + ":" + strconv.Itoa(d.Line) }

// ObjectRef returns the document's object as "kind/name", or just the kind when the object has no name.
func (d Document) ObjectRef() string { return objectRef(d.Object) }

// YAMLFile is a multi-document YAML file read by ReadYAML.
type YAMLFile struct {
	// Name is the file name given to ReadYAML.
	Name string
	// Data is the whole file.
	Data []byte
	// Documents are the file's objects in order; empty documents and documents with only comments are left out.
	Documents []Document
}

// PositionError is an error about one place in a file. It unwraps to the cause (ErrMalformed, ErrTooLarge or
// an I/O error).
type PositionError struct {
	// File is the file name.
	File string
	// Line is the 1-based line, 0 when the error is about the whole file.
	Line int
	// Err is the cause.
	Err error
}

// Error returns "file:line: cause", or "file: cause" when Line is 0.
func (e *PositionError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the cause.
func (e *PositionError) Unwrap() error { return e.Err }

// ReadOption configures ReadYAML.
type ReadOption func(*readOptions)

type readOptions struct{ maxBytes int64 }

// WithMaxBytes sets the size limit of the input; larger input fails with ErrTooLarge.
func WithMaxBytes(n int64) ReadOption { return func(o *readOptions) { o.maxBytes = n } }

// ReadYAMLFile reads the multi-document YAML file at path; see ReadYAML.
func ReadYAMLFile(path string, opts ...ReadOption) (*YAMLFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &PositionError{File: path, Err: fmt.Errorf("cannot open file: %w", err)}
	}
	defer f.Close()
	return ReadYAML(f, path, opts...)
}

// ReadYAML reads multi-document YAML ("---" between documents) from r; name is the file name used in errors
// and in each Document. Comments and empty documents are allowed. Every other document must be a map with a
// string apiVersion and kind; anything else fails with an error that wraps ErrMalformed and names file and
// line. Values are decoded the way kubectl decodes them (sigs.k8s.io/yaml). Input larger than the size limit
// fails with ErrTooLarge before any parsing.
func ReadYAML(r io.Reader, name string, opts ...ReadOption) (*YAMLFile, error) {
	o := readOptions{maxBytes: DefaultMaxYAMLBytes}
	for _, opt := range opts {
		opt(&o)
	}
	data, err := io.ReadAll(io.LimitReader(r, o.maxBytes+1))
	if err != nil {
		return nil, &PositionError{File: name, Err: fmt.Errorf("cannot read: %w", err)}
	}
	if int64(len(data)) > o.maxBytes {
		return nil, &PositionError{File: name, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, o.maxBytes)}
	}
	out := &YAMLFile{Name: name, Data: data}
	chunks, err := splitDocuments(data)
	if err != nil {
		var pe *PositionError
		if errors.As(err, &pe) {
			pe.File = name
		}
		return nil, err
	}
	for _, c := range chunks {
		doc, ok, err := decodeDocument(name, c)
		if err != nil {
			return nil, err
		}
		if ok {
			out.Documents = append(out.Documents, doc)
		}
	}
	return out, nil
}

// chunk is the text of one document and the line it starts on.
type chunk struct {
	line int
	text []byte
}

// splitDocuments splits YAML text at lines that are a "---" or "..." marker, optionally followed by a comment.
func splitDocuments(data []byte) ([]chunk, error) {
	var (
		out  []chunk
		cur  = chunk{line: 1}
		line = 0
	)
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i+1], data[i+1:]
		} else {
			l, data = data, nil
		}
		marker, rest, isMarker := documentMarker(l)
		if !isMarker {
			cur.text = append(cur.text, l...)
			continue
		}
		if rest != "" && !strings.HasPrefix(rest, "#") {
			return nil, &PositionError{Line: line,
				Err: fmt.Errorf("%w: only a comment may follow the document marker %q, found %q", ErrMalformed, marker, truncate(rest, 40))}
		}
		out = append(out, cur)
		cur = chunk{line: line + 1}
	}
	return append(out, cur), nil
}

// documentMarker reports whether line is a "---" or "..." marker line and returns what follows it, trimmed.
func documentMarker(line []byte) (string, string, bool) {
	for _, m := range []string{"---", "..."} {
		if !bytes.HasPrefix(line, []byte(m)) {
			continue
		}
		rest := line[len(m):]
		if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\r' && rest[0] != '\n' {
			continue
		}
		return m, strings.TrimSpace(string(rest)), true
	}
	return "", "", false
}

// yamlLine finds "line N" in the error messages of the YAML libraries.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// decodeDocument decodes one chunk; ok is false for a document with no content.
func decodeDocument(file string, c chunk) (Document, bool, error) {
	fail := func(line int, format string, args ...any) (Document, bool, error) {
		return Document{}, false, &PositionError{File: file, Line: line, Err: fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)}
	}
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(c.text, &root); err != nil {
		line, msg := c.line, strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			if n, convErr := strconv.Atoi(m[1]); convErr == nil {
				msg = strings.TrimPrefix(strings.Replace(msg, m[0], "", 1), ": ")
				// The YAML parser (not the scanner) reports 0-based lines; its errors are the "did not find expected …" ones.
				if strings.HasPrefix(msg, "did not find expected") {
					n++
				}
				line = c.line + n - 1
			}
		}
		return fail(line, "%s", msg)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return Document{}, false, nil // only comments or nothing
	}
	node := root.Content[0]
	line := c.line + node.Line - 1
	switch {
	case node.Kind == yamlv3.ScalarNode && node.Tag == "!!null":
		return Document{}, false, nil
	case node.Kind == yamlv3.SequenceNode:
		return fail(line, "document is a YAML list, want a map with apiVersion and kind")
	case node.Kind == yamlv3.ScalarNode:
		return fail(line, "document is the scalar %q, want a map with apiVersion and kind", truncate(node.Value, 40))
	case node.Kind == yamlv3.AliasNode:
		return fail(line, "document is an alias, want a map with apiVersion and kind")
	}
	if key, at, first, dup := duplicateKey(node); dup {
		return fail(c.line+at-1, "mapping key %q is repeated (first at line %d): the later value would silently win", truncate(key, 40), c.line+first-1)
	}
	j, err := yaml.YAMLToJSON(c.text)
	if err != nil {
		return fail(line, "%s", err.Error())
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(j, &obj); err != nil {
		return fail(line, "cannot decode document: %s", err.Error())
	}
	for _, key := range []string{"apiVersion", "kind"} {
		v, found := obj[key]
		s, isString := v.(string)
		switch {
		case !found:
			return fail(line, "document has no %s", key)
		case !isString:
			return fail(line, "%s is a %s, want a string", key, jsonvalue.KindOf(v))
		case s == "":
			return fail(line, "%s is empty", key)
		}
	}
	if md, found := obj["metadata"]; found && md != nil {
		if _, isMap := md.(map[string]any); !isMap {
			return fail(line, "metadata is a %s, want a map", jsonvalue.KindOf(md))
		}
	}
	return Document{File: file, Line: line, StartLine: c.line, Raw: c.text, Object: &unstructured.Unstructured{Object: obj}}, true, nil
}

// duplicateKey finds a key repeated in one mapping of the tree and returns it, its line and the line of its first
// occurrence (lines relative to the document).
func duplicateKey(n *yamlv3.Node) (key string, line, first int, found bool) {
	type frame struct {
		n     *yamlv3.Node
		depth int
	}
	stack := []frame{{n, 0}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.n == nil || f.depth > maxYAMLDepth {
			continue
		}
		if f.n.Kind == yamlv3.MappingNode {
			seen := map[string]int{}
			for i := 0; i+1 < len(f.n.Content); i += 2 {
				k := f.n.Content[i]
				if k.Kind != yamlv3.ScalarNode || k.Value == "<<" {
					continue
				}
				if at, ok := seen[k.Value]; ok {
					return k.Value, k.Line, at, true
				}
				seen[k.Value] = k.Line
			}
		}
		if f.n.Kind == yamlv3.AliasNode {
			continue // the anchored node is checked where it is defined
		}
		for _, child := range f.n.Content {
			stack = append(stack, frame{child, f.depth + 1})
		}
	}
	return "", 0, 0, false
}

// maxYAMLDepth bounds the walk of duplicateKey; the YAML parser itself refuses deeper documents.
const maxYAMLDepth = 10000

// objectRef returns "kind/name", or the kind alone for an object without a name.
func objectRef(u *unstructured.Unstructured) string {
	if u == nil {
		return ""
	}
	if name := u.GetName(); name != "" {
		return u.GetKind() + "/" + name
	}
	return u.GetKind()
}

// truncate shortens s to n bytes for messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
