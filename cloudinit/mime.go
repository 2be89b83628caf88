package cloudinit

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"regexp"
	"strings"
)

var scriptNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// maxMIMEParts bounds the parts of a MIME multipart user data; real ones have a few.
const maxMIMEParts = 100

// parseMIME decodes a MIME multipart user data: at most one cloud-config part (cloud-init's
// merging of several is not supported) and at most maxMIMEParts parts in all. Other part
// types are unsupported and named by index and content type.
func (d *decoder) parseMIME(body []byte, cfg *Config, o *parseOptions) error {
	msg, err := mail.ReadMessage(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("MIME header is malformed: %w", ErrInvalid)
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return fmt.Errorf("MIME Content-Type is malformed: %w", ErrInvalid)
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		data, err := d.readPart(msg.Body, msg.Header.Get("Content-Transfer-Encoding"), "part[0]")
		if err != nil {
			return err
		}
		return d.part(cfg, o, "part[0]", mediaType, "", data)
	}
	if params["boundary"] == "" {
		return fmt.Errorf("MIME multipart has no boundary: %w", ErrInvalid)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for i := 0; ; i++ {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		at := index("part", i)
		if i == maxMIMEParts && err == nil {
			return fmt.Errorf("MIME multipart has more than %d parts: %w", maxMIMEParts, ErrTooLarge)
		}
		if err != nil {
			return fmt.Errorf("%s: MIME part is malformed: %w", at, ErrInvalid)
		}
		ctype := ""
		if h := p.Header.Get("Content-Type"); h != "" {
			if ctype, _, err = mime.ParseMediaType(h); err != nil {
				return fmt.Errorf("%s: Content-Type is malformed: %w", at, ErrInvalid)
			}
		}
		data, err := d.readPart(p, p.Header.Get("Content-Transfer-Encoding"), at)
		if err != nil {
			return err
		}
		if err := d.part(cfg, o, at, ctype, p.FileName(), data); err != nil {
			return err
		}
	}
}

// readPart reads a part body within the document limit, undoing base64 transfer encoding
// (quoted-printable is undone by mime/multipart) and gzip compression.
func (d *decoder) readPart(r io.Reader, cte, at string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, readLimit(d.maxDoc)))
	if err != nil {
		return nil, fmt.Errorf("%s: MIME part is malformed: %w", at, ErrInvalid)
	}
	if len(data) > d.maxDoc {
		return nil, fmt.Errorf("%s: MIME part is more than %d bytes (WithMaxSize): %w", at, d.maxDoc, ErrTooLarge)
	}
	if strings.EqualFold(strings.TrimSpace(cte), "base64") {
		if data, err = base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(data)), "")); err != nil {
			return nil, fmt.Errorf("%s: base64 transfer encoding is corrupt: %w", at, ErrInvalid)
		}
	}
	if isGzip(data) {
		if data, err = d.gunzip(data, d.maxDoc, "(WithMaxSize)"); err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
	}
	return data, nil
}

// part decodes one MIME part by its content type, or by its first line for text/plain.
func (d *decoder) part(cfg *Config, o *parseOptions, at, ctype, filename string, data []byte) error {
	body, vars, err := d.applyTemplate(data, o)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	cfg.Jinja = cfg.Jinja || vars != nil
	kind := detect(body)
	switch ctype {
	case "text/cloud-config":
		kind = KindCloudConfig
	case "text/x-shellscript":
		kind = KindShellScript
	case "", "text/plain", "text/x-not-multipart", "text/jinja2":
	default:
		kind = ""
	}
	switch kind {
	case KindCloudConfig:
		if d.sawCloudConfig {
			return d.unsupported(at, "a second cloud-config part (merging parts is not supported)")
		}
		d.sawCloudConfig = true
		d.prefix = at + "."
		defer func() { d.prefix = "" }()
		return d.parseCloudConfig(body, cfg, vars)
	case KindShellScript:
		body = bytes.TrimPrefix(body, utf8BOM)
		if !bytes.HasPrefix(body, []byte("#!")) {
			return fmt.Errorf("%s: shell script does not start with #!: %w", at, ErrInvalid)
		}
		if body, err = d.expandScript(body, vars); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		name := fmt.Sprintf("part-%03d", len(cfg.Scripts)+1)
		if scriptNameRE.MatchString(filename) {
			name = filename
		}
		cfg.Scripts = append(cfg.Scripts, Script{Name: name, Content: body})
		return nil
	}
	if ctype == "" {
		ctype = "text/plain"
	}
	return d.unsupported(at, "content type "+show(ctype)+" is not supported")
}
