package cloudinit

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// maxNodes bounds the YAML nodes visited, aliases included, so that an alias bomb fails
// fast instead of exhausting memory. The largest real cloud-config (kubeadm init) visits
// fewer than 300.
const maxNodes = 100_000

// decoder turns YAML nodes into typed values and records what lenient mode skips.
type decoder struct {
	lenient   bool
	skipped   []Skip
	visited   int
	maxDoc    int        // the largest document: user data, decompressed data, MIME part, script
	maxValues int        // the most bytes of decoded values (aliases count each time)
	budget    int        // bytes of decoded values left
	prefix    string     // "part[1]." for MIME parts
	vars      *jinjaVars // the variables of the document being decoded, or nil

	sawCloudConfig bool // a MIME cloud-config part was decoded
}

// unsupported reports something Parse cannot render: an error in strict mode, a Skip in
// lenient mode.
func (d *decoder) unsupported(path, reason string) error {
	if d.lenient {
		d.skipped = append(d.skipped, Skip{Path: d.prefix + path, Reason: reason})
		return nil
	}
	return &FieldError{Path: d.prefix + path, Msg: reason, Err: ErrUnsupported}
}

// resolve follows aliases and counts nodes.
func (d *decoder) resolve(n *yaml.Node) (*yaml.Node, error) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	d.visited++
	if d.visited > maxNodes {
		return nil, fmt.Errorf("document has more than %d YAML nodes (aliases counted): %w", maxNodes, ErrTooLarge)
	}
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, nil
	}
	return n, nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "null"
		}
		return "a scalar"
	}
	return "an unexpected YAML node"
}

// field is one key of a mapping with its value.
type field struct {
	key   string
	value *yaml.Node
}

// mapping returns the fields of a mapping, rejecting duplicate keys. A null node is an
// empty mapping.
func (d *decoder) mapping(n *yaml.Node, path string) ([]field, error) {
	n, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, d.invalidf(path, "must be a mapping, not %s", kindName(n))
	}
	fields := make([]field, 0, len(n.Content)/2)
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, err := d.resolve(n.Content[i])
		if err != nil {
			return nil, err
		}
		if k.Kind != yaml.ScalarNode {
			return nil, d.invalidf(path, "keys must be scalars, not %s", kindName(k))
		}
		if d.vars.has(k.Value) {
			name := d.vars.firstName(k.Value)
			msg := "jinja variable " + show(name) + " is in a mapping key: variables are substituted into values only"
			if err := d.unsupported(join(path, "{{ "+name+" }}"), msg); err != nil {
				return nil, err
			}
			continue
		}
		if len(k.Value) > 256 || hasControl(k.Value) {
			return nil, d.invalidf(path, "key %s is not a valid name", show(k.Value))
		}
		if seen[k.Value] {
			return nil, d.invalidf(join(path, k.Value), "duplicate key")
		}
		seen[k.Value] = true
		fields = append(fields, field{key: k.Value, value: n.Content[i+1]})
	}
	return fields, nil
}

// sequence returns the items of a list. A null node is an empty list.
func (d *decoder) sequence(n *yaml.Node, path string) ([]*yaml.Node, error) {
	n, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.invalidf(path, "must be a list, not %s", kindName(n))
	}
	return n.Content, nil
}

// str returns a scalar as a string; ok is false for null. Numbers and booleans are taken
// as written, as cloud-init does when it needs a string.
func (d *decoder) str(n *yaml.Node, path string) (s string, ok bool, err error) {
	return d.scalar(n, path, false)
}

// scalar is str; with shell set the scalar is a shell command line, in which the value of a jinja
// variable must be one plain word.
func (d *decoder) scalar(n *yaml.Node, path string, shell bool) (s string, ok bool, err error) {
	n, err = d.resolve(n)
	if err != nil {
		return "", false, err
	}
	if isNull(n) {
		return "", false, nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", false, d.invalidf(path, "must be a string, not %s", kindName(n))
	}
	v, err := d.value(n, path, shell)
	if err != nil {
		return "", false, err
	}
	// Aliases can repeat a long value many times: every value read counts against the size
	// limit, like decompressed data.
	if err := d.spend(len(v), path); err != nil {
		return "", false, err
	}
	if n.Tag == "!!binary" {
		b, err := decodeBinary(v)
		if err != nil {
			return "", false, d.invalidf(path, "!!binary value is not base64")
		}
		return string(b), true, nil
	}
	return v, true, nil
}

// value returns the value of a scalar node with the values of jinja variables in place of their
// tokens: a value is data of the scalar it stands in, whatever characters it holds.
func (d *decoder) value(n *yaml.Node, path string, shell bool) (string, error) {
	v, err := d.vars.expand(n.Value, shell, d.budget)
	var fe *FieldError
	switch {
	case errors.Is(err, errExpandLimit):
		return "", d.tooManyValues(path)
	case errors.As(err, &fe):
		return "", &FieldError{Path: d.prefix + path, Msg: fe.Msg, Err: fe.Err}
	}
	return v, err
}

// bytes returns a scalar as bytes, decoding !!binary values.
func (d *decoder) bytes(n *yaml.Node, path string) ([]byte, error) {
	s, _, err := d.str(n, path)
	return []byte(s), err
}

func decodeBinary(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	return base64.StdEncoding.DecodeString(s)
}

// boolean returns a YAML 1.1 boolean (true/false, yes/no, on/off, any case), as cloud-init
// reads them; a null node gives def.
func (d *decoder) boolean(n *yaml.Node, path string, def bool) (bool, error) {
	s, ok, err := d.str(n, path)
	if err != nil || !ok {
		return def, err
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return false, d.invalidf(path, "%s is not a boolean", show(s))
}

// strings returns a list of strings; a single string is a list of one when single is true.
func (d *decoder) strings(n *yaml.Node, path string, single bool) ([]string, error) {
	r, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	if r.Kind == yaml.ScalarNode && !isNull(r) && single {
		s, _, err := d.str(r, path)
		return []string{s}, err
	}
	items, err := d.sequence(r, path)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		s, ok, err := d.str(item, index(path, i))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, d.invalidf(index(path, i), "must be a string, not null")
		}
		out = append(out, s)
	}
	return out, nil
}

// invalidf returns an ErrInvalid FieldError with the decoder's path prefix.
func (d *decoder) invalidf(path, format string, args ...any) error {
	return invalidf(d.prefix+path, format, args...)
}

// check prefixes the path of a FieldError returned by a validator.
func (d *decoder) check(err error) error {
	if fe, ok := err.(*FieldError); ok && d.prefix != "" { //nolint:errorlint // validators return *FieldError unwrapped
		return &FieldError{Path: d.prefix + fe.Path, Msg: fe.Msg, Err: fe.Err}
	}
	return err
}
