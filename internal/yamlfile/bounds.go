package yamlfile

import (
	"bytes"
	"fmt"
	"math"

	yamlv3 "go.yaml.in/yaml/v3"
)

// Default bounds of Read. Each fits the largest real release files with room to spare: Cluster API's
// core-components.yaml is about 2.5 MB (about 55,000 YAML nodes and 130 documents), a provider's
// infrastructure-components.yaml 1.5 to 6 MB.
const (
	// DefaultMaxBytes is the default size limit of Read: 32 MiB, checked before the input is parsed.
	DefaultMaxBytes int64 = 32 << 20
	// DefaultMaxNodes is the default limit of YAML nodes (scalars, maps and lists) of a file, after YAML aliases
	// are expanded: decoding costs memory per node, so a few bytes of "[1,1,1,…]" cost far more than their size.
	// Before parsing, Read also refuses a file whose lines and indicators allow more nodes than this (see
	// WithMaxNodes); real files have about one node per 45 bytes and allow about twice as many as they have, so
	// the default admits files of about 20 MB.
	DefaultMaxNodes int64 = 1_000_000
	// DefaultMaxDocuments is the default limit of documents of a file, empty ones and the items of a List
	// included.
	DefaultMaxDocuments = 10_000
)

// Option configures Read.
type Option func(*readOptions)

type readOptions struct {
	maxBytes, maxExpandedBytes, maxNodes int64
	expandedSet                          bool
	maxDocuments, maxFindings            int
	findingsSet                          bool
	// variables: substitute clusterctl variables before parsing (WithVariables).
	variables bool
	// defaultAPIVersion and defaultKind are given to documents without them (WithDefaultKind).
	defaultAPIVersion, defaultKind string
}

func defaultReadOptions(opts []Option) readOptions {
	o := readOptions{maxBytes: DefaultMaxBytes, maxNodes: DefaultMaxNodes, maxDocuments: DefaultMaxDocuments}
	for _, opt := range opts {
		opt(&o)
	}
	if !o.expandedSet {
		o.maxExpandedBytes = o.maxBytes
	}
	o.maxBytes, o.maxExpandedBytes, o.maxNodes = max(o.maxBytes, 0), max(o.maxExpandedBytes, 0), max(o.maxNodes, 0)
	o.maxDocuments = max(o.maxDocuments, 0)
	return o
}

// WithMaxBytes sets the size limit of the input (DefaultMaxBytes); larger input fails with ErrTooLarge before it
// is parsed. It is also the default of WithMaxExpandedBytes.
func WithMaxBytes(n int64) Option { return func(o *readOptions) { o.maxBytes = n } }

// WithMaxExpandedBytes sets the limit of the bytes of a file's values (scalars, keys included) once YAML aliases are
// expanded; it defaults to the size limit, which a file without aliases never exceeds. A file above it fails with
// ErrTooLarge before it is decoded: a 1 MiB string referenced 3,000 times by aliases would otherwise become 3 GiB.
func WithMaxExpandedBytes(n int64) Option {
	return func(o *readOptions) { o.maxExpandedBytes, o.expandedSet = n, true }
}

// WithMaxNodes sets the limit of YAML nodes of a file after aliases are expanded (DefaultMaxNodes). A file that
// may hold more fails with ErrTooLarge before it is parsed: each line and each indicator ("-" or "?" before a space,
// ":", ",", "[", "{", "*") can start at most a line's first node or two more, so lines + 2 × indicators bounds the
// nodes of the file without parsing it. A file within that count is parsed, and its nodes counted through aliases.
func WithMaxNodes(n int64) Option { return func(o *readOptions) { o.maxNodes = n } }

// WithMaxDocuments sets the limit of documents of a file (DefaultMaxDocuments); empty documents and the items of
// a List count. More fail with ErrTooLarge.
func WithMaxDocuments(n int) Option { return func(o *readOptions) { o.maxDocuments = n } }

// WithMaxFindings records in the File how many findings a checker of it lists (release/clusterctl's CheckFiles; see
// MaxFindings); n <= 0 lists them all. The reader itself does not use it.
func WithMaxFindings(n int) Option {
	return func(o *readOptions) { o.maxFindings, o.findingsSet = n, true }
}

// tooLarge returns an error about the file that wraps ErrTooLarge.
func tooLarge(file string, line int, format string, args ...any) error {
	return &PositionError{File: file, Line: line, Err: fmt.Errorf("%w: "+format, append([]any{ErrTooLarge}, args...)...)}
}

// checkNodeEstimate refuses data whose lines and indicators allow more than max nodes, before it is parsed.
func checkNodeEstimate(file string, data []byte, maxNodes int64) error {
	lines, indicators, bound := nodeBound(data)
	if bound > maxNodes {
		return tooLarge(file, 0, "its %d lines and %d indicators (%q, %q, %q, %q, %q, %q, %q) allow up to %d YAML nodes, more than the limit of %d nodes",
			lines, indicators, "-", "?", ":", ",", "[", "{", "*", bound, maxNodes)
	}
	return nil
}

// nodeBound returns the lines and indicators of data and the most YAML nodes they allow, lines + 2 × indicators:
// a node is started at the start of a line or by an indicator ("-" and "?" before white space, ":", ",", "[", "{",
// "*"), and each indicator starts at most two (a collection, or an empty value, and the next scalar).
func nodeBound(data []byte) (lines, indicators, bound int64) {
	lines = int64(bytes.Count(data, []byte("\n"))) + 1
	for i, c := range data {
		switch c {
		case ':', ',', '[', '{', '*':
			indicators++
		case '-', '?':
			if i+1 == len(data) || isYAMLSpace(data[i+1]) {
				indicators++
			}
		}
	}
	return lines, indicators, lines + 2*indicators
}

func isYAMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// expansion counts the bytes of values and the nodes of a file's documents as a decoder sees them, every alias
// replaced by what it refers to, without expanding anything: the nodes are walked in document order, each alias
// adds the counts of its anchored node, which was counted before it (an anchor comes before its aliases).
type expansion struct {
	file               string
	maxBytes, maxNodes int64
	bytes, nodes       int64                     // running totals of the file
	sizes              map[*yamlv3.Node]nodeSize // anchored nodes already counted
	inProgress         map[*yamlv3.Node]bool     // anchored nodes being counted: an alias to one is a cycle
	startLine          int                       // line of the current document in the file
	err                error
}

type nodeSize struct{ bytes, nodes int64 }

// add counts one document, whose root node starts at the file's line startLine, into the file's totals; it returns
// an error at the first node that takes a total over its limit, or at an alias to a node that holds it.
func (e *expansion) add(root *yamlv3.Node, startLine int) error {
	e.startLine = startLine
	e.sizes, e.inProgress = map[*yamlv3.Node]nodeSize{}, map[*yamlv3.Node]bool{} // anchors are per document
	e.walk(root, 0)
	return e.err
}

func (e *expansion) walk(n *yamlv3.Node, depth int) {
	if n == nil || e.err != nil || depth > maxYAMLDepth {
		return
	}
	if n.Kind == yamlv3.AliasNode {
		target := n.Alias
		switch s, done := e.sizes[target]; {
		case target == nil:
		case done:
			e.count(n, s)
		case e.inProgress[target]:
			e.err = &PositionError{File: e.file, Line: e.line(n), Err: fmt.Errorf("%w: alias %q refers to a node that holds it", ErrMalformed, Truncate(n.Value, 40))}
		default:
			e.walk(target, depth+1)
		}
		return
	}
	before := nodeSize{e.bytes, e.nodes}
	if n.Anchor != "" {
		e.inProgress[n] = true
		defer delete(e.inProgress, n)
	}
	e.count(n, nodeSize{bytes: int64(len(n.Value)), nodes: 1})
	for _, c := range n.Content {
		e.walk(c, depth+1)
	}
	if n.Anchor != "" && e.err == nil {
		e.sizes[n] = nodeSize{e.bytes - before.bytes, e.nodes - before.nodes}
	}
}

// count adds s, the size of n or of what the alias n refers to, to the totals.
func (e *expansion) count(n *yamlv3.Node, s nodeSize) {
	if e.err != nil {
		return
	}
	e.bytes, e.nodes = satAdd(e.bytes, s.bytes), satAdd(e.nodes, s.nodes)
	switch {
	case e.bytes > e.maxBytes:
		e.err = tooLarge(e.file, e.line(n), "more than %d bytes of values after YAML aliases are expanded", e.maxBytes)
	case e.nodes > e.maxNodes:
		e.err = tooLarge(e.file, e.line(n), "more than %d YAML nodes after YAML aliases are expanded", e.maxNodes)
	}
}

func (e *expansion) line(n *yamlv3.Node) int { return e.startLine + n.Line - 1 }

// satAdd adds two non-negative counts, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
