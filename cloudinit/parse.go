package cloudinit

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// DefaultMaxSize is the default limit of WithMaxSize: 16 MiB.
const DefaultMaxSize = 16 << 20

// ParseOption configures Parse.
type ParseOption func(*parseOptions)

type parseOptions struct {
	vars    map[string]string
	lenient bool
	maxSize int
}

// WithVariables declares the jinja variables of a "## template: jinja" user data. A key
// with dots matches that exact reference ("ds.meta_data.hostname"); a key without dots also
// matches any reference ending with it, so {"local_hostname": "n1"} serves both
// {{ v1.local_hostname }} and {{ ds.meta_data.local_hostname }}. Values must not hold
// control characters. Later calls add to earlier ones.
func WithVariables(vars map[string]string) ParseOption {
	return func(o *parseOptions) {
		if o.vars == nil {
			o.vars = make(map[string]string, len(vars))
		}
		for k, v := range vars {
			o.vars[k] = v
		}
	}
}

// WithLenient makes Parse skip unsupported modules, fields, values and MIME parts instead
// of failing, and list them in Config.Skipped for the caller to log. Invalid values are
// errors in lenient mode too.
func WithLenient() ParseOption { return func(o *parseOptions) { o.lenient = true } }

// WithMaxSize limits the size of the user data, and separately the size of everything
// decoded from it (decompressed data and YAML values, which aliases can repeat), in bytes.
// The default is DefaultMaxSize.
func WithMaxSize(n int) ParseOption { return func(o *parseOptions) { o.maxSize = n } }

// Parse reads user data as the kubeadm bootstrap provider writes it: a #cloud-config YAML
// document, optionally a "## template: jinja" template, optionally gzip-compressed; or a
// shell script starting with #!; or a MIME multipart archive of those. Every module is
// either decoded into the Config or reported: in strict mode (the default) an unsupported
// module, field or value is an error wrapping ErrUnsupported; with WithLenient it is listed
// in Config.Skipped. Errors name the module, the item index and the field, for example
// write_files[3].permissions: "0x644" is not octal, and never include file contents or
// commands.
func Parse(data []byte, opts ...ParseOption) (*Config, error) {
	o := parseOptions{maxSize: DefaultMaxSize}
	for _, opt := range opts {
		opt(&o)
	}
	if err := checkVars(o.vars); err != nil {
		return nil, fmt.Errorf("cannot parse user data: %w", err)
	}
	d := &decoder{lenient: o.lenient, budget: o.maxSize}
	cfg, err := d.parseUserData(data, &o)
	if err != nil {
		return nil, fmt.Errorf("cannot parse user data: %w", err)
	}
	cfg.Skipped = d.skipped
	return cfg, nil
}

// parseUserData detects the format of data and parses it.
func (d *decoder) parseUserData(data []byte, o *parseOptions) (*Config, error) {
	if len(data) > o.maxSize {
		return nil, fmt.Errorf("user data is %d bytes, more than %d: %w", len(data), o.maxSize, ErrTooLarge)
	}
	if isGzip(data) {
		var err error
		if data, err = d.gunzip(data); err != nil {
			return nil, fmt.Errorf("user data: %w", err)
		}
	}
	cfg := &Config{}
	body, jinja, err := d.applyTemplate(data, o)
	if err != nil {
		return nil, err
	}
	cfg.Jinja = jinja
	body = bytes.TrimPrefix(body, utf8BOM)
	switch kind := detect(body); kind {
	case KindCloudConfig:
		cfg.Kind = KindCloudConfig
		return cfg, d.parseCloudConfig(body, cfg)
	case KindShellScript:
		cfg.Kind = KindShellScript
		cfg.Scripts = []Script{{Name: "part-001", Content: body}}
		return cfg, nil
	case KindMIMEMultipart:
		cfg.Kind = KindMIMEMultipart
		return cfg, d.parseMIME(body, cfg, o)
	default:
		return nil, formatError(body)
	}
}

// applyTemplate renders a "## template: jinja" user data.
func (d *decoder) applyTemplate(data []byte, o *parseOptions) ([]byte, bool, error) {
	kind, rest, ok := templateHeader(data)
	if !ok {
		return data, false, nil
	}
	if kind != "jinja" {
		return nil, false, fmt.Errorf("template type %s: %w (only jinja)", show(kind), ErrUnsupported)
	}
	out, err := renderJinja(string(rest), o.vars)
	if err != nil {
		return nil, false, err
	}
	return []byte(out), true, nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

// detect returns the kind of user data from its first line, or "" when unknown.
func detect(data []byte) Kind {
	data = bytes.TrimPrefix(data, utf8BOM)
	switch {
	case bytes.HasPrefix(data, []byte("#cloud-config\n")), bytes.HasPrefix(data, []byte("#cloud-config\r\n")),
		bytes.HasPrefix(data, []byte("#cloud-config ")), bytes.Equal(data, []byte("#cloud-config")):
		return KindCloudConfig
	case bytes.HasPrefix(data, []byte("#!")):
		return KindShellScript
	case hasPrefixFold(data, "content-type:"), hasPrefixFold(data, "mime-version:"):
		return KindMIMEMultipart
	}
	return ""
}

func hasPrefixFold(data []byte, prefix string) bool {
	return len(data) >= len(prefix) && bytes.EqualFold(data[:len(prefix)], []byte(prefix))
}

// formatError names the unsupported or unknown format of user data.
func formatError(data []byte) error {
	for _, h := range []string{"#include", "#cloud-boothook", "#part-handler", "#cloud-config-archive", "#cloud-config-jsonp", "#upstart-job"} {
		if bytes.HasPrefix(data, []byte(h)) {
			return fmt.Errorf("user data format %s: %w", show(h), ErrUnsupported)
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("user data is empty: %w", ErrInvalid)
	}
	return fmt.Errorf("user data does not start with #cloud-config, #! or a MIME header: %w", ErrInvalid)
}

func isGzip(data []byte) bool { return len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b }

// gunzip decompresses data within the decoder's budget.
func (d *decoder) gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gzip data is corrupt: %w", ErrInvalid)
	}
	out, err := io.ReadAll(io.LimitReader(zr, int64(d.budget)+1))
	if err != nil {
		return nil, fmt.Errorf("gzip data is corrupt: %w", ErrInvalid)
	}
	if err := d.spend(len(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// spend takes n bytes of decoded data from the budget set by WithMaxSize.
func (d *decoder) spend(n int) error {
	if n > d.budget {
		return fmt.Errorf("decoded data exceeds the limit of WithMaxSize (aliases and decompression count): %w", ErrTooLarge)
	}
	d.budget -= n
	return nil
}
