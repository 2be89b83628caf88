package cloudinit

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
)

// DefaultMaxSize is the default limit of WithMaxSize: 1 MiB, the most a Kubernetes Secret holds, and
// about 16 times the largest real bootstrap data (a kubeadm control-plane cloud-config with every
// certificate is 20 to 60 KB).
const DefaultMaxSize = 1 << 20

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
// {{ v1.local_hostname }} and {{ ds.meta_data.local_hostname }}. Values must be UTF-8 without
// control characters, at most 4096 bytes. Later calls add to earlier ones.
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

// WithMaxSize sets the size limits of Parse, in bytes: n for the user data, and for each
// document decoded from it (decompressed user data or MIME part, rendered jinja script); 4 × n
// for the values decoded from the YAML (values repeated by aliases count each time) and the
// decompressed file contents together. n must be positive; the default is DefaultMaxSize.
func WithMaxSize(n int) ParseOption { return func(o *parseOptions) { o.maxSize = n } }

// Parse reads user data as the kubeadm bootstrap provider writes it: a #cloud-config YAML
// document, optionally a "## template: jinja" template, optionally gzip-compressed; or a
// shell script starting with #!; or a MIME multipart archive of those. Every module is
// either decoded into the Config or reported: in strict mode (the default) an unsupported
// module, field or value is an error wrapping ErrUnsupported; with WithLenient it is listed
// in Config.Skipped. Errors name the module, the item index and the field, for example
// write_files[3].permissions: "0x644" is not octal, and never include file contents or
// commands. Input beyond the bounds of WithMaxSize is an error wrapping ErrTooLarge.
func Parse(data []byte, opts ...ParseOption) (*Config, error) {
	cfg, _, err := parse(data, opts)
	return cfg, err
}

// parse is Parse, returning the decoder too so that tests can see what it counted.
func parse(data []byte, opts []ParseOption) (*Config, *decoder, error) {
	o := parseOptions{maxSize: DefaultMaxSize}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxSize <= 0 {
		return nil, nil, fmt.Errorf("cannot parse user data: WithMaxSize: %d is not a positive number of bytes: %w", o.maxSize, ErrInvalid)
	}
	if err := checkVars(o.vars); err != nil {
		return nil, nil, fmt.Errorf("cannot parse user data: %w", err)
	}
	d := &decoder{lenient: o.lenient, maxDoc: o.maxSize, maxValues: saturatingMul(o.maxSize, valuesPerByte)}
	d.budget = d.maxValues
	cfg, err := d.parseUserData(data, &o)
	if err != nil {
		return nil, d, fmt.Errorf("cannot parse user data: %w", err)
	}
	cfg.Skipped = d.skipped
	return cfg, d, nil
}

// valuesPerByte is the ratio of the limit on decoded values to WithMaxSize.
const valuesPerByte = 4

// saturatingMul returns a × b for positive numbers, or math.MaxInt when that overflows.
func saturatingMul(a, b int) int {
	if a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}

// readLimit is the limit of a reader that must read more than n bytes to tell that the data is
// larger than n: n + 1, or math.MaxInt64 when that overflows.
func readLimit(n int) int64 {
	if int64(n) >= math.MaxInt64-1 {
		return math.MaxInt64
	}
	return int64(n) + 1
}

// parseUserData detects the format of data and parses it.
func (d *decoder) parseUserData(data []byte, o *parseOptions) (*Config, error) {
	if len(data) > o.maxSize {
		return nil, fmt.Errorf("user data is %d bytes, more than the limit of %d bytes (WithMaxSize): %w", len(data), o.maxSize, ErrTooLarge)
	}
	if isGzip(data) {
		var err error
		if data, err = d.gunzip(data, d.maxDoc, "(WithMaxSize)"); err != nil {
			return nil, fmt.Errorf("user data: %w", err)
		}
	}
	cfg := &Config{}
	body, vars, err := d.applyTemplate(data, o)
	if err != nil {
		return nil, err
	}
	cfg.Jinja = vars != nil
	body = bytes.TrimPrefix(body, utf8BOM)
	kind := detect(body)
	if vars != nil && kind == KindMIMEMultipart {
		return nil, fmt.Errorf("a jinja template renders to a #cloud-config or a #! script, not a MIME archive: %w", ErrUnsupported)
	}
	switch kind {
	case KindCloudConfig:
		cfg.Kind = KindCloudConfig
		return cfg, d.parseCloudConfig(body, cfg, vars)
	case KindShellScript:
		cfg.Kind = KindShellScript
		script, err := d.expandScript(body, vars)
		if err != nil {
			return nil, err
		}
		cfg.Scripts = []Script{{Name: "part-001", Content: script}}
		return cfg, nil
	case KindMIMEMultipart:
		cfg.Kind = KindMIMEMultipart
		return cfg, d.parseMIME(body, cfg, o)
	default:
		return nil, formatError(body)
	}
}

// applyTemplate reads the header of a "## template: jinja" user data and replaces its variables
// by tokens (see jinja.go); vars is nil when data is not a template.
func (d *decoder) applyTemplate(data []byte, o *parseOptions) ([]byte, *jinjaVars, error) {
	kind, rest, ok := templateHeader(data)
	if !ok {
		return data, nil, nil
	}
	if kind != "jinja" {
		if identifierRE.MatchString(kind) {
			return nil, nil, fmt.Errorf("template type %s: %w (only jinja)", show(kind), ErrUnsupported)
		}
		return nil, nil, fmt.Errorf("template type is not jinja: %w", ErrUnsupported)
	}
	out, vars, err := tokenizeJinja(string(rest), o.vars)
	if err != nil {
		return nil, nil, err
	}
	return []byte(out), vars, nil
}

// expandScript puts the values of jinja variables into a shell script, each of which must be one
// word that the shell takes as it is, and bounds the result by the document limit.
func (d *decoder) expandScript(body []byte, vars *jinjaVars) ([]byte, error) {
	if vars == nil {
		return body, nil
	}
	out, err := vars.expand(string(body), true, d.maxDoc)
	if errors.Is(err, errExpandLimit) {
		return nil, fmt.Errorf("shell script: jinja template renders to more than %d bytes (WithMaxSize): %w", d.maxDoc, ErrTooLarge)
	}
	if err != nil {
		return nil, fmt.Errorf("shell script: %w", err)
	}
	return []byte(out), nil
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

// gunzip decompresses data, failing with ErrTooLarge beyond limit bytes; bound names the limit in
// the error.
func (d *decoder) gunzip(data []byte, limit int, bound string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gzip data is corrupt: %w", ErrInvalid)
	}
	out, err := io.ReadAll(io.LimitReader(zr, readLimit(limit)))
	if err != nil {
		return nil, fmt.Errorf("gzip data is corrupt: %w", ErrInvalid)
	}
	if len(out) > limit {
		return nil, fmt.Errorf("gzip data decompresses to more than %d bytes %s: %w", limit, bound, ErrTooLarge)
	}
	return out, nil
}

// spend takes n bytes of decoded values from the budget of WithMaxSize; at names the value.
func (d *decoder) spend(n int, at string) error {
	if n > d.budget {
		return d.tooManyValues(at)
	}
	d.budget -= n
	return nil
}

// tooManyValues is the error of a value at that exceeds the budget of decoded values.
func (d *decoder) tooManyValues(at string) error {
	return fmt.Errorf("%s: decoded values exceed the limit of %d bytes (%d × WithMaxSize; values repeated by aliases count each time): %w",
		d.prefix+at, d.maxValues, valuesPerByte, ErrTooLarge)
}
