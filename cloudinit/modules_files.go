package cloudinit

import (
	"errors"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// writeFiles decodes write_files.
func (d *decoder) writeFiles(n *yaml.Node, cfg *Config) error {
	items, err := d.sequence(n, "write_files")
	if err != nil {
		return err
	}
	for i, item := range items {
		f, err := d.writeFile(item, index("write_files", i))
		if err != nil {
			return err
		}
		cfg.WriteFiles = append(cfg.WriteFiles, f)
	}
	return nil
}

func (d *decoder) writeFile(n *yaml.Node, at string) (File, error) {
	f := File{Owner: "root:root", Permissions: 0o644}
	fields, err := d.mapping(n, at)
	if err != nil {
		return f, err
	}
	var content []byte
	hasPath := false
	for _, fl := range fields {
		p := join(at, fl.key)
		switch fl.key {
		case "path":
			f.Path, hasPath, err = d.str(fl.value, p)
		case "content":
			content, err = d.bytes(fl.value, p)
		case "encoding":
			f.Encoding, _, err = d.str(fl.value, p)
		case "owner":
			var s string
			var ok bool
			if s, ok, err = d.str(fl.value, p); ok {
				f.Owner = s
			}
		case "permissions":
			var ok bool
			f.Permissions, ok, err = d.mode(fl.value, p)
			if !ok {
				f.Permissions = 0o644
			}
		case "append":
			f.Append, err = d.boolean(fl.value, p, false)
		case "defer":
			f.Defer, err = d.boolean(fl.value, p, false)
		default:
			err = d.unsupported(p, "field not supported")
		}
		if err != nil {
			return f, err
		}
	}
	if !hasPath {
		return f, d.invalidf(join(at, "path"), "is missing")
	}
	if f.Content, err = d.decodeContent(f.Encoding, content, at); err != nil {
		return f, err
	}
	return f, d.check(validFile(f, at))
}

// mode decodes permissions; ok is false for null.
func (d *decoder) mode(n *yaml.Node, at string) (uint32, bool, error) {
	r, err := d.resolve(n)
	if err != nil || isNull(r) {
		return 0, false, err
	}
	if r.Kind != yaml.ScalarNode {
		return 0, false, d.invalidf(at, "must be an octal string, not %s", kindName(r))
	}
	quoted := r.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0
	v, err := d.value(r, at, false)
	if err != nil {
		return 0, false, err
	}
	m, err := parseMode(v, quoted, at)
	return m, true, d.check(err)
}

// encodings maps the write_files encodings cloud-init accepts to their decoding steps.
var encodings = map[string][]string{
	"": nil, "text/plain": nil,
	"b64": {"base64"}, "base64": {"base64"},
	"gz": {"gzip"}, "gzip": {"gzip"},
	"gz+b64": {"base64", "gzip"}, "gz+base64": {"base64", "gzip"},
	"gzip+b64": {"base64", "gzip"}, "gzip+base64": {"base64", "gzip"},
}

// decodeContent undoes base64 and gzip as named by encoding (case-insensitive, as in
// cloud-init). An unknown encoding is an error, not plain text as cloud-init assumes.
func (d *decoder) decodeContent(encoding string, content []byte, at string) ([]byte, error) {
	steps, ok := encodings[strings.ToLower(strings.TrimSpace(encoding))]
	if !ok {
		return nil, d.invalidf(join(at, "encoding"), "%s is not one of b64, base64, gz, gzip, gz+b64, gz+base64, gzip+b64, gzip+base64, text/plain", show(encoding))
	}
	for _, step := range steps {
		var err error
		switch step {
		case "base64":
			if content, err = decodeBinary(string(content)); err != nil {
				return nil, d.invalidf(join(at, "content"), "is not valid base64")
			}
		case "gzip":
			if content, err = d.gunzip(content, d.budget, ""); err != nil {
				if errors.Is(err, ErrTooLarge) {
					return nil, d.tooManyValues(join(at, "content"))
				}
				return nil, d.invalidf(join(at, "content"), "is not valid gzip data")
			}
			if err := d.spend(len(content), join(at, "content")); err != nil {
				return nil, err
			}
		}
	}
	if content == nil {
		content = []byte{}
	}
	return content, nil
}
