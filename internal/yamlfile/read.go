package yamlfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/internal/jsonvalue"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// ErrMalformed is wrapped by every error about YAML that cannot be read as Kubernetes objects: bad syntax, a
// document that is a list or a scalar instead of a map, or a document without apiVersion or kind.
var ErrMalformed = errors.New("malformed YAML")

// ErrTooLarge is wrapped by the error of Read for input above one of its bounds: bytes read
// (DefaultMaxBytes, WithMaxBytes), bytes of values after aliases are expanded (WithMaxExpandedBytes), YAML
// nodes (DefaultMaxNodes, WithMaxNodes) and documents (DefaultMaxDocuments, WithMaxDocuments). The error
// names the file, the line where there is one, and the bound.
var ErrTooLarge = errors.New("YAML input too large")

// Document is one YAML document of a file, decoded into an unstructured Kubernetes object.
type Document struct {
	// File is the name of the file the document comes from.
	File string
	// Line is the 1-based line of the document's first field, the line to report about the object.
	Line int
	// StartLine is the 1-based line where the document's text starts (after its "---" separator); for an item of
	// a List, the item's line.
	StartLine int
	// Raw is the document's text, comments included; for an item of a List, the List's text.
	Raw []byte
	// Object is the decoded object; its apiVersion and kind are set.
	Object *unstructured.Unstructured
	// List is set when the object is an item of a List document; the items of one List share it.
	List *ListOrigin
}

// ListOrigin is the List document an object was read from: a document whose kind is List or ends in List (e.g.
// ConfigMapList) and that has an items list. Read reads each item as a Document of its own, as kubectl does.
type ListOrigin struct {
	// Kind is the List's kind.
	Kind string
	// Line is the 1-based line of the List document's first field.
	Line int
	// Items is the number of items of the List.
	Items int
}

// Position returns "file:line" for messages.
func (d Document) Position() string { return d.File + ":" + strconv.Itoa(d.Line) }

// ObjectRef returns the document's object as "kind/name", or just the kind when the object has no name.
func (d Document) ObjectRef() string { return ObjectRef(d.Object) }

// File is a multi-document YAML file read by Read.
type File struct {
	// Name is the file name given to Read.
	Name string
	// Data is the whole file.
	Data []byte
	// Documents are the file's objects in order; empty documents and documents with only comments are left out,
	// and the items of a List take the place of the List.
	Documents []Document

	// maxFindings is the limit of findings a checker lists for the file (WithMaxFindings): 0 for the checker's
	// default, < 0 for none.
	maxFindings int
}

// MaxFindings returns the limit of findings a checker of f lists for it, as WithMaxFindings set it: 0 when it was
// not set (the checker's default applies), -1 for no limit. It is a function, not a method, so that the File type
// that release/clusterctl exports keeps the methods it had.
func MaxFindings(f *File) int { return f.maxFindings }

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

// Error returns "file:line: cause", or "file: cause" when Line is 0, on one line of printable text: a file name that
// is not printable is quoted, line breaks in the cause become spaces and its other characters that are not printable
// Go escapes.
func (e *PositionError) Error() string {
	cause := ""
	if e.Err != nil {
		cause = lint.EscapeText(e.Err.Error())
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", lint.QuoteName(e.File), e.Line, cause)
	}
	return fmt.Sprintf("%s: %s", lint.QuoteName(e.File), cause)
}

// Unwrap returns the cause.
func (e *PositionError) Unwrap() error { return e.Err }

// ReadFile reads the multi-document YAML file at path; see Read. Anything but a regular file (a named pipe, a
// device, a socket) is refused before it is read, and a file larger than the size limit by its size.
func ReadFile(path string, opts ...Option) (*File, error) {
	// O_NONBLOCK: opening a named pipe must not wait for a writer; it makes no difference to a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &PositionError{File: path, Err: fmt.Errorf("cannot open file: %w", err)}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &PositionError{File: path, Err: fmt.Errorf("cannot read: %w", err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, &PositionError{File: path, Err: fmt.Errorf("cannot read: not a regular file (%s)", FileType(fi.Mode()))}
	}
	if o := defaultReadOptions(opts); fi.Size() > o.maxBytes {
		return nil, tooLarge(path, 0, "%d bytes, more than %d bytes", fi.Size(), o.maxBytes)
	}
	return Read(f, path, opts...)
}

// FileType names the type of a file that is not a regular file or a folder, for messages: "named pipe", "socket",
// "device", "character device", "symbolic link" or "irregular file".
func FileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "folder"
	case m.IsRegular():
		return "regular file"
	}
	return "irregular file"
}

// Read reads multi-document YAML ("---" between documents) from r; name is the file name used in errors
// and in each Document. Comments and empty documents are allowed. Every other document must be a map with a
// string apiVersion and kind; anything else fails with an error that wraps ErrMalformed and names file and
// line. Values are decoded the way kubectl decodes them (sigs.k8s.io/yaml), and the items of a List document are
// read as documents of their own (see ListOrigin).
//
// Input above a bound fails with an error that wraps ErrTooLarge, names the file, the line where there is one and
// the bound, before it is decoded: more bytes than the size limit (read no further than the limit), more YAML
// nodes than its lines and indicators allow (before parsing), more documents (while splitting), more bytes of
// values or nodes once aliases are expanded (counted on the parsed, unexpanded tree). See the With options.
func Read(r io.Reader, name string, opts ...Option) (*File, error) {
	o := defaultReadOptions(opts)
	limit := o.maxBytes
	if limit < math.MaxInt64 {
		limit++ // one byte more than allowed tells input above the limit
	}
	data, err := io.ReadAll(io.LimitReader(r, limit))
	if err != nil {
		return nil, &PositionError{File: name, Err: fmt.Errorf("cannot read: %w", err)}
	}
	if int64(len(data)) > o.maxBytes {
		return nil, tooLarge(name, 0, "more than %d bytes", o.maxBytes)
	}
	if err := checkNodeEstimate(name, data, o.maxNodes); err != nil {
		return nil, err
	}
	maxFindings := o.maxFindings
	if o.findingsSet && maxFindings <= 0 {
		maxFindings = -1
	}
	out := &File{Name: name, Data: data, maxFindings: maxFindings}
	text, vars := data, (*placeholders)(nil)
	if o.variables {
		// A placeholder is a few bytes longer than a short reference: the text parsed stays within the size limit.
		if sub, p := substituteVariables(data); p != nil && int64(len(sub)) <= o.maxBytes {
			text, vars = sub, p
		}
	}
	chunks, err := splitDocuments(text, o.maxDocuments)
	if err != nil {
		var pe *PositionError
		if errors.As(err, &pe) {
			pe.File = name
		}
		return nil, err
	}
	if vars != nil {
		keepOriginalText(chunks, data, o.maxDocuments)
	}
	exp := &expansion{file: name, maxBytes: o.maxExpandedBytes, maxNodes: o.maxNodes}
	for _, c := range chunks {
		docs, err := decodeDocument(name, c, exp, &o, vars)
		if err != nil {
			return nil, err
		}
		if len(out.Documents)+len(docs) > o.maxDocuments {
			return nil, tooLarge(name, docs[o.maxDocuments-len(out.Documents)].Line, "more than %d YAML documents (the items of a List count as documents)", o.maxDocuments)
		}
		out.Documents = append(out.Documents, docs...)
	}
	return out, nil
}

// chunk is the text of one document and the line it starts on.
type chunk struct {
	line int
	text []byte
	// raw is the document's original text when text has placeholders for clusterctl variables; else nil.
	raw []byte
}

// keepOriginalText records in each chunk of the substituted text the original text of its document. Substitution
// keeps every line (a reference that spans lines is not replaced), so the documents of the original text start on
// the same lines.
func keepOriginalText(chunks []chunk, original []byte, maxDocuments int) {
	orig, err := splitDocuments(original, maxDocuments)
	if err != nil || len(orig) != len(chunks) {
		return
	}
	for i := range chunks {
		if orig[i].line == chunks[i].line {
			chunks[i].raw = orig[i].text
		}
	}
}

// splitDocuments splits YAML text at lines that are a "---" or "..." marker, optionally followed by a comment, and
// leaves out blank documents; more than maxDocuments others (those with only a comment or a null included) fail with
// ErrTooLarge.
func splitDocuments(data []byte, maxDocuments int) ([]chunk, error) {
	var (
		out   []chunk
		err   error
		start = 0 // offset of the current document
		cur   = chunk{line: 1}
		line  = 0
		off   = 0
	)
	for off < len(data) {
		line++
		end := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		l := data[off:end]
		off = end
		marker, rest, isMarker := documentMarker(l)
		if !isMarker {
			continue
		}
		if rest != "" && !strings.HasPrefix(rest, "#") {
			return nil, &PositionError{Line: line,
				Err: fmt.Errorf("%w: only a comment may follow the document marker %q, found %q", ErrMalformed, marker, Truncate(rest, 40))}
		}
		cur.text = data[start : end-len(l) : end-len(l)]
		if out, err = appendChunk(out, cur, maxDocuments); err != nil {
			return nil, err
		}
		start, cur = end, chunk{line: line + 1}
	}
	cur.text = data[start:len(data):len(data)]
	return appendChunk(out, cur, maxDocuments)
}

// appendChunk appends c unless it is blank (nothing but white space); a chunk beyond maxDocuments fails with
// ErrTooLarge.
func appendChunk(chunks []chunk, c chunk, maxDocuments int) ([]chunk, error) {
	if len(bytes.TrimSpace(c.text)) == 0 {
		return chunks, nil
	}
	if len(chunks) >= maxDocuments {
		return nil, &PositionError{Line: c.line, Err: fmt.Errorf("%w: more than %d YAML documents", ErrTooLarge, maxDocuments)}
	}
	return append(chunks, c), nil
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

// decodeDocument decodes one chunk into its objects: none for a document with no content, the items of a List, or
// the document's object. exp counts the document's values and nodes with aliases expanded, before it is decoded.
// o gives the kind and apiVersion of documents without them; vars, when set, the placeholders of the text, whose
// references are put back into the decoded values and the messages.
func decodeDocument(file string, c chunk, exp *expansion, o *readOptions, vars *placeholders) ([]Document, error) {
	fail := func(line int, format string, args ...any) ([]Document, error) {
		msg := vars.restore(fmt.Sprintf(format, args...))
		return nil, &PositionError{File: file, Line: line, Err: fmt.Errorf("%w: %s", ErrMalformed, msg)}
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
		return nil, nil // only comments or nothing
	}
	node := root.Content[0]
	line := c.line + node.Line - 1
	switch {
	case node.Kind == yamlv3.ScalarNode && node.Tag == "!!null":
		return nil, nil
	case node.Kind == yamlv3.SequenceNode:
		return fail(line, "document is a YAML list, want a map with apiVersion and kind")
	case node.Kind == yamlv3.ScalarNode:
		return fail(line, "document is the scalar %q, want a map with apiVersion and kind", Truncate(node.Value, 40))
	case node.Kind == yamlv3.AliasNode:
		return fail(line, "document is an alias, want a map with apiVersion and kind")
	}
	if key, at, first, dup := duplicateKey(node); dup {
		return fail(c.line+at-1, "mapping key %q is repeated (first at line %d): the later value would silently win", Truncate(key, 40), c.line+first-1)
	}
	if err := exp.add(&root, c.line); err != nil {
		return nil, err
	}
	lines := itemLines(node, c.line) // the parsed tree is not needed after this: the decoder may free it
	j, err := yaml.YAMLToJSON(c.text)
	if err != nil {
		return fail(line, "%s", err.Error())
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(j, &obj); err != nil {
		return fail(line, "cannot decode document: %s", err.Error())
	}
	if vars != nil {
		vars.restoreValue(obj)
	}
	o.applyDefaultKind(obj)
	if err := checkObject(obj); err != nil {
		return fail(line, "%s", err)
	}
	raw := c.text
	if c.raw != nil {
		raw = c.raw
	}
	doc := Document{File: file, Line: line, StartLine: c.line, Raw: raw, Object: &unstructured.Unstructured{Object: obj}}
	if items, ok := listItems(obj); ok {
		if len(lines) != len(items) {
			lines = nil
		}
		return expandList(doc, items, lines)
	}
	return []Document{doc}, nil
}

// checkObject checks that a decoded document is a Kubernetes object: a string apiVersion and kind, and metadata a
// map if set.
func checkObject(obj map[string]any) error {
	for _, key := range []string{"apiVersion", "kind"} {
		v, found := obj[key]
		s, isString := v.(string)
		switch {
		case !found:
			return fmt.Errorf("document has no %s", key)
		case !isString:
			return fmt.Errorf("%s is a %s, want a string", key, jsonvalue.KindOf(v))
		case s == "":
			return fmt.Errorf("%s is empty", key)
		}
	}
	if md, found := obj["metadata"]; found && md != nil {
		if _, isMap := md.(map[string]any); !isMap {
			return fmt.Errorf("metadata is a %s, want a map", jsonvalue.KindOf(md))
		}
	}
	return nil
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

// ObjectRef returns "kind/name", or the kind alone for an object without a name.
func ObjectRef(u *unstructured.Unstructured) string {
	if u == nil {
		return ""
	}
	if name := u.GetName(); name != "" {
		return u.GetKind() + "/" + name
	}
	return u.GetKind()
}

// Truncate shortens s to n bytes for messages.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
