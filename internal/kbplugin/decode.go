package kbplugin

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Bounds of the decoder, beside MaxFileBytes (a file's content, and any other field's JSON).
const (
	readBufferBytes = 64 << 10
	maxPathBytes    = 4096 // a Universe path, or a field name
)

// decodeRequest decodes one request object from br without encoding/json's Decoder, which holds a whole value (a file
// of the Universe) in its buffer before decoding it: the Universe's contents are decoded as they stream in, and those
// of a dropped file are counted, not kept. Other fields are bounded, then decoded with encoding/json.
func decodeRequest(br *bufio.Reader) (Request, error) {
	s := scanner{br: br}
	var req Request
	c, err := s.next()
	if errors.Is(err, io.EOF) {
		return req, errors.New("empty request")
	}
	if err != nil {
		return req, err
	}
	if c != '{' && strings.IndexByte(`["-0123456789tfn`, c) < 0 {
		return req, fmt.Errorf("invalid character %q looking for beginning of value", rune(c))
	}
	if err := want(c, '{'); err != nil {
		return req, err
	}
	for first := true; ; first = false {
		c, err := s.next()
		if err != nil {
			return req, unexpectedEOF(err)
		}
		if c == '}' {
			break
		}
		if !first {
			if err := want(c, ','); err != nil {
				return req, err
			}
			if c, err = s.next(); err != nil {
				return req, unexpectedEOF(err)
			}
		}
		key, err := s.key(c)
		if err != nil {
			return req, err
		}
		if err := s.decodeField(key, &req); errors.Is(err, io.ErrUnexpectedEOF) {
			return req, err // the request is cut, not the field wrong
		} else if err != nil {
			return req, fmt.Errorf("cannot decode field %q: %w", key, err)
		}
	}
	if _, err := s.next(); !errors.Is(err, io.EOF) {
		if err != nil {
			return req, err
		}
		return req, errors.New("cannot decode: data after the request object")
	}
	return req, nil
}

// decodeField decodes the value of field key into req.
func (s *scanner) decodeField(key string, req *Request) error {
	if key == "universe" {
		return s.decodeUniverse(req)
	}
	raw, err := s.captureValue(MaxFileBytes)
	if err != nil {
		return err
	}
	var v any
	switch key {
	case "apiVersion":
		v = &req.APIVersion
	case "args":
		v = &req.Args
	case "command":
		v = &req.Command
	case "pluginChain":
		v = &req.PluginChain
	case "config":
		v = &req.Config
	default:
		v = new(json.RawMessage) // an unknown field, checked
	}
	return json.Unmarshal(raw, v)
}

// decodeUniverse decodes the Universe object (or null) into req, keeping the files up to MaxFileBytes.
func (s *scanner) decodeUniverse(req *Request) error {
	c, err := s.next()
	if err != nil {
		return unexpectedEOF(err)
	}
	if c == 'n' {
		_ = s.br.UnreadByte()
		raw, err := s.captureValue(len("null"))
		if err != nil || string(raw) != "null" {
			return fmt.Errorf("want an object, got %q", raw)
		}
		req.Universe, req.tooLarge = nil, nil
		return nil
	}
	if c != '{' {
		return fmt.Errorf("want an object, got %q", rune(c))
	}
	if req.Universe == nil {
		req.Universe = map[string]string{} // a second "universe" field adds to the first, as with encoding/json
	}
	for first := true; ; first = false {
		if c, err = s.next(); err != nil {
			return unexpectedEOF(err)
		}
		if c == '}' {
			return nil
		}
		if !first {
			if err := want(c, ','); err != nil {
				return err
			}
			if c, err = s.next(); err != nil {
				return unexpectedEOF(err)
			}
		}
		path, err := s.key(c)
		if err != nil {
			return err
		}
		if c, err = s.next(); err != nil {
			return unexpectedEOF(err)
		}
		if c != '"' {
			return fmt.Errorf("cannot decode file %q: want a string, got %q", path, rune(c))
		}
		n, err := s.readString(MaxFileBytes)
		if err != nil {
			return fmt.Errorf("cannot decode file %q: %w", path, err)
		}
		if n > MaxFileBytes {
			if req.tooLarge == nil {
				req.tooLarge = map[string]int{}
			}
			req.tooLarge[path] = n
			delete(req.Universe, path)
			continue
		}
		req.Universe[path] = string(s.scratch[:n])
		delete(req.tooLarge, path)
	}
}

// scanner reads JSON from a buffered reader.
type scanner struct {
	br *bufio.Reader
	// scratch holds the string being decoded; reused, it grows to the longest kept content (or MaxFileBytes when a
	// file is dropped) once.
	scratch []byte
}

// next returns the next byte that is not JSON white space.
func (s *scanner) next() (byte, error) {
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, nil
		}
	}
}

// key reads an object's key, whose first byte c was read, and the colon after it.
func (s *scanner) key(c byte) (string, error) {
	if c != '"' {
		return "", fmt.Errorf("want a string key, got %q", rune(c))
	}
	n, err := s.readString(maxPathBytes)
	if err != nil {
		return "", err
	}
	if n > maxPathBytes {
		return "", fmt.Errorf("cannot decode a key of %d bytes: over %d", n, maxPathBytes)
	}
	if c, err = s.next(); err != nil {
		return "", unexpectedEOF(err)
	}
	return string(s.scratch[:n]), want(c, ':')
}

// readString decodes the rest of a JSON string, whose opening quote was read, as encoding/json does (invalid UTF-8
// and lone surrogates become U+FFFD). It keeps the content in s.scratch when it is at most keep bytes long, and
// returns its length.
func (s *scanner) readString(keep int) (int, error) {
	s.scratch = s.scratch[:0]
	out := sink{buf: &s.scratch, keep: keep}
	for {
		if _, err := s.br.Peek(1); err != nil {
			return out.n, unexpectedEOF(err)
		}
		buf, _ := s.br.Peek(s.br.Buffered())
		i := 0
		for i < len(buf) && buf[i] >= ' ' && buf[i] < utf8.RuneSelf && buf[i] != '"' && buf[i] != '\\' {
			i++
		}
		out.write(buf[:i])
		if i == len(buf) {
			_, _ = s.br.Discard(i)
			continue
		}
		c := buf[i]
		_, _ = s.br.Discard(i)
		switch {
		case c == '"':
			_, _ = s.br.Discard(1)
			return out.n, nil
		case c == '\\':
			if err := s.escape(&out); err != nil {
				return out.n, err
			}
		case c < ' ':
			return out.n, fmt.Errorf("invalid character %q in string literal", rune(c))
		default:
			p, _ := s.br.Peek(utf8.UTFMax)
			r, size := utf8.DecodeRune(p)
			if r == utf8.RuneError && size == 1 {
				out.rune(utf8.RuneError)
			} else {
				out.write(p[:size])
			}
			_, _ = s.br.Discard(size)
		}
	}
}

// escape decodes the escape sequence at the reader, backslash included.
func (s *scanner) escape(out *sink) error {
	p, err := s.br.Peek(2)
	if len(p) < 2 {
		return unexpectedEOF(err)
	}
	if i := strings.IndexByte(`"\/bfnrt`, p[1]); i >= 0 {
		out.byte("\"\\/\b\f\n\r\t"[i])
		_, _ = s.br.Discard(2)
		return nil
	}
	if p[1] != 'u' {
		return fmt.Errorf("invalid escape %q in string literal", p)
	}
	p, err = s.br.Peek(6)
	r := hex4(p)
	if r < 0 {
		if len(p) < 6 {
			return unexpectedEOF(err)
		}
		return fmt.Errorf("invalid escape %q in string literal", p)
	}
	_, _ = s.br.Discard(6)
	if utf16.IsSurrogate(r) {
		high := r // p is stale once Peek refills the buffer
		r = unicode.ReplacementChar
		if q, _ := s.br.Peek(6); hex4(q) >= 0 {
			if d := utf16.DecodeRune(high, hex4(q)); d != unicode.ReplacementChar {
				r = d
				_, _ = s.br.Discard(6)
			}
		}
	}
	out.rune(r)
	return nil
}

// hex4 returns the code of the escape \uXXXX at the start of p, or -1.
func hex4(p []byte) rune {
	if len(p) < 6 || p[0] != '\\' || p[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range p[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// sink counts a string's bytes and keeps them in buf while they are at most keep.
type sink struct {
	buf  *[]byte
	keep int
	n    int
}

func (o *sink) write(b []byte) {
	if o.n += len(b); o.n > o.keep {
		return
	}
	buf := *o.buf
	if len(buf)+len(b) > cap(buf) {
		// Doubling, not append's slower growth for large slices: growing to n costs at most 2n.
		grown := make([]byte, len(buf), max(2*cap(buf), len(buf)+len(b), readBufferBytes))
		copy(grown, buf)
		buf = grown
	}
	*o.buf = append(buf, b...)
}

func (o *sink) byte(c byte) { o.write([]byte{c}) }

func (o *sink) rune(r rune) {
	var b [utf8.UTFMax]byte
	o.write(b[:utf8.EncodeRune(b[:], r)])
}

// captureValue returns the JSON text of the next value, refusing one over limit bytes; encoding/json checks it.
func (s *scanner) captureValue(limit int) ([]byte, error) {
	c, err := s.next()
	if err != nil {
		return nil, unexpectedEOF(err)
	}
	buf := []byte{c}
	depth := 0
	switch c {
	case '{', '[':
		depth = 1
	case '"':
		return s.captureString(buf, limit)
	default: // a literal or a number, up to a delimiter
		for {
			c, err := s.br.ReadByte()
			if errors.Is(err, io.EOF) {
				return buf, nil
			}
			if err != nil {
				return nil, err
			}
			if strings.IndexByte(" \t\n\r,}]", c) >= 0 {
				_ = s.br.UnreadByte()
				return buf, nil
			}
			if buf = append(buf, c); len(buf) > limit {
				return nil, fmt.Errorf("over %d bytes", limit)
			}
		}
	}
	for depth > 0 {
		c, err := s.br.ReadByte()
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		buf = append(buf, c)
		switch c {
		case '"':
			if buf, err = s.captureString(buf, limit); err != nil {
				return nil, err
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		if len(buf) > limit {
			return nil, fmt.Errorf("over %d bytes", limit)
		}
	}
	return buf, nil
}

// captureString appends the rest of a JSON string, whose opening quote buf ends with, to buf.
func (s *scanner) captureString(buf []byte, limit int) ([]byte, error) {
	for escaped := false; ; {
		c, err := s.br.ReadByte()
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		if buf = append(buf, c); len(buf) > limit {
			return nil, fmt.Errorf("over %d bytes", limit)
		}
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			return buf, nil
		}
	}
}

// want checks that the byte c read is the delimiter d.
func want(c, d byte) error {
	if c == d {
		return nil
	}
	switch c {
	case '{', '}', '[', ']', ',', ':':
		return fmt.Errorf(`want "%c", got %c`, d, c)
	}
	return fmt.Errorf(`want "%c", got %q`, d, rune(c))
}

// unexpectedEOF turns io.EOF inside a value into io.ErrUnexpectedEOF.
func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
