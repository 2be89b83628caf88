package clusterctl

import (
	"io"
	"io/fs"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/internal/yamlfile"
)

// ErrMalformed is wrapped by every error about YAML that cannot be read as Kubernetes objects: bad syntax, a
// document that is a list or a scalar instead of a map, or a document without apiVersion or kind.
var ErrMalformed = yamlfile.ErrMalformed

// ErrTooLarge is wrapped by the error of ReadYAML for input above one of its bounds: bytes read
// (DefaultMaxYAMLBytes, WithMaxBytes), bytes of values after aliases are expanded (WithMaxExpandedBytes), YAML
// nodes (DefaultMaxYAMLNodes, WithMaxNodes) and documents (DefaultMaxYAMLDocuments, WithMaxDocuments). The error
// names the file, the line where there is one, and the bound.
var ErrTooLarge = yamlfile.ErrTooLarge

// Document is one YAML document of a file, decoded into an unstructured Kubernetes object: its File, its Line (of
// the document's first field, the line to report about the object), StartLine (where its text starts, after its
// "---" separator; for an item of a List, the item's line), Raw (its text, comments included; for an item of a
// List, the List's text), Object (apiVersion and kind set) and List (set when the object is an item of a List
// document). Position returns "file:line" and ObjectRef "kind/name".
type Document = yamlfile.Document

// ListOrigin is the List document an object was read from: a document whose kind is List or ends in List (e.g.
// ConfigMapList) and that has an items list. ReadYAML reads each item as a Document of its own, as kubectl does.
// Its fields are the List's Kind, the Line of its first field and its number of Items.
type ListOrigin = yamlfile.ListOrigin

// YAMLFile is a multi-document YAML file read by ReadYAML: its Name (as given to ReadYAML), its Data (the whole
// file) and its Documents in order (empty documents and documents with only comments left out, the items of a
// List in the place of the List).
type YAMLFile = yamlfile.File

// PositionError is an error about one place in a file: its File, its 1-based Line (0 when the error is about the
// whole file) and its cause Err (ErrMalformed, ErrTooLarge or an I/O error), which it unwraps to. Its message is
// "file:line: cause", or "file: cause", on one line of printable text: a file name that is not printable is quoted,
// line breaks in the cause become spaces and its other characters that are not printable Go escapes.
type PositionError = yamlfile.PositionError

// ReadOption configures ReadYAML.
type ReadOption = yamlfile.Option

// Default bounds of ReadYAML. Each fits the largest real release files with room to spare: Cluster API's
// core-components.yaml is about 2.5 MB (about 55,000 YAML nodes and 130 documents), a provider's
// infrastructure-components.yaml 1.5 to 6 MB.
const (
	// DefaultMaxYAMLBytes is the default size limit of ReadYAML: 32 MiB, checked before the input is parsed.
	DefaultMaxYAMLBytes int64 = yamlfile.DefaultMaxBytes
	// DefaultMaxYAMLNodes is the default limit of YAML nodes (scalars, maps and lists) of a file, after YAML aliases
	// are expanded: decoding costs memory per node, so a few bytes of "[1,1,1,…]" cost far more than their size.
	// Before parsing, ReadYAML also refuses a file whose lines and indicators allow more nodes than this (see
	// WithMaxNodes); real files have about one node per 45 bytes and allow about twice as many as they have, so
	// the default admits files of about 20 MB.
	DefaultMaxYAMLNodes int64 = yamlfile.DefaultMaxNodes
	// DefaultMaxYAMLDocuments is the default limit of documents of a file, empty ones and the items of a List
	// included.
	DefaultMaxYAMLDocuments = yamlfile.DefaultMaxDocuments
	// DefaultMaxFindings is the default limit of findings CheckFiles lists for one file; one more finding of rule
	// RuleMoreFindings counts the rest.
	DefaultMaxFindings = 100
)

// ReadYAMLFile reads the multi-document YAML file at path; see ReadYAML. Anything but a regular file (a named pipe, a
// device, a socket) is refused before it is read, and a file larger than the size limit by its size.
func ReadYAMLFile(path string, opts ...ReadOption) (*YAMLFile, error) {
	return yamlfile.ReadFile(path, asClusterctl(path, opts)...)
}

// asClusterctl returns the options with which a file of this name is read as clusterctl reads it: metadata.yaml
// decoded into clusterctl's Metadata type, which gives a document without kind or apiVersion clusterctl's; any
// other file with its clusterctl variables substituted before it is parsed.
func asClusterctl(name string, opts []ReadOption) []ReadOption {
	first := yamlfile.WithVariables()
	if ClassifyFile(name) == FileMetadata {
		first = yamlfile.WithDefaultKind(MetadataAPIVersion, "Metadata")
	}
	return append([]ReadOption{first}, opts...)
}

// FileType names the type of a file that is not a regular file or a folder, for messages: "named pipe", "socket",
// "device", "character device", "symbolic link" or "irregular file".
func FileType(m fs.FileMode) string { return yamlfile.FileType(m) }

// ReadYAML reads multi-document YAML ("---" between documents) from r; name is the file name used in errors
// and in each Document. Comments and empty documents are allowed. Every other document must be a map with a
// string apiVersion and kind; anything else fails with an error that wraps ErrMalformed and names file and
// line. Values are decoded the way kubectl decodes them (sigs.k8s.io/yaml), and the items of a List document are
// read as documents of their own (see ListOrigin).
//
// It reads the text as clusterctl does. In a file named metadata.yaml, a document without kind is of kind Metadata,
// and one without apiVersion of MetadataAPIVersion (clusterctl decodes the file into its Metadata type, which
// supplies them). In any other file, clusterctl variable references (${VAR}, ${VAR:=default}, ${VAR=default},
// ${VAR:-default}, ${ VAR }, the string functions; not $VAR, which clusterctl leaves as it is) are replaced with
// placeholders before the YAML is parsed, as clusterctl substitutes them before parsing a template, so that text
// that is YAML only once substituted, e.g. "sshAuthorizedKeys: [${VM_SSH_KEYS}]", is read; the decoded values hold
// each reference's text where its placeholder ended up, and YAMLFile.Data and Document.Raw the original text. A
// reference that spans lines is left as it is.
//
// Input above a bound fails with an error that wraps ErrTooLarge, names the file, the line where there is one and
// the bound, before it is decoded: more bytes than the size limit (read no further than the limit), more YAML
// nodes than its lines and indicators allow (before parsing), more documents (while splitting), more bytes of
// values or nodes once aliases are expanded (counted on the parsed, unexpanded tree). See the With options.
func ReadYAML(r io.Reader, name string, opts ...ReadOption) (*YAMLFile, error) {
	return yamlfile.Read(r, name, asClusterctl(name, opts)...)
}

// WithMaxBytes sets the size limit of the input (DefaultMaxYAMLBytes); larger input fails with ErrTooLarge before it
// is parsed. It is also the default of WithMaxExpandedBytes.
func WithMaxBytes(n int64) ReadOption { return yamlfile.WithMaxBytes(n) }

// WithMaxExpandedBytes sets the limit of the bytes of a file's values (scalars, keys included) once YAML aliases are
// expanded; it defaults to the size limit, which a file without aliases never exceeds. A file above it fails with
// ErrTooLarge before it is decoded: a 1 MiB string referenced 3,000 times by aliases would otherwise become 3 GiB.
func WithMaxExpandedBytes(n int64) ReadOption { return yamlfile.WithMaxExpandedBytes(n) }

// WithMaxNodes sets the limit of YAML nodes of a file after aliases are expanded (DefaultMaxYAMLNodes). A file that
// may hold more fails with ErrTooLarge before it is parsed: each line and each indicator ("-" or "?" before a space,
// ":", ",", "[", "{", "*") can start at most a line's first node or two more, so lines + 2 × indicators bounds the
// nodes of the file without parsing it. A file within that count is parsed, and its nodes counted through aliases.
func WithMaxNodes(n int64) ReadOption { return yamlfile.WithMaxNodes(n) }

// WithMaxDocuments sets the limit of documents of a file (DefaultMaxYAMLDocuments); empty documents and the items of
// a List count. More fail with ErrTooLarge.
func WithMaxDocuments(n int) ReadOption { return yamlfile.WithMaxDocuments(n) }

// WithMaxFindings sets how many findings CheckFiles lists for the file (DefaultMaxFindings); the rest are counted by
// one finding of rule RuleMoreFindings. n <= 0 lists them all.
func WithMaxFindings(n int) ReadOption { return yamlfile.WithMaxFindings(n) }

// findingsLimit returns the limit of findings CheckFiles lists for f, or -1 for no limit.
func findingsLimit(f *YAMLFile) int {
	if n := yamlfile.MaxFindings(f); n != 0 {
		return n
	}
	return DefaultMaxFindings
}

// objectRef returns "kind/name", or the kind alone for an object without a name.
func objectRef(u *unstructured.Unstructured) string { return yamlfile.ObjectRef(u) }

// truncate shortens s to n bytes for messages.
func truncate(s string, n int) string { return yamlfile.Truncate(s, n) }
