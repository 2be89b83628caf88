package cloudinit

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

var (
	// ErrInvalid is wrapped by every error about a value that is malformed or unsafe: a path
	// that is not absolute, permissions that are not octal, an owner that is not a user name,
	// content that does not decode. Such values are rejected in strict and lenient mode alike.
	ErrInvalid = errors.New("invalid value")

	// ErrUnsupported is wrapped when the user data uses a module, a field, a value or a
	// format that this package does not render (for example the packages module, the
	// distribution's "default" user or a #include file). In strict mode Parse returns it; in
	// lenient mode Parse records a Skip instead.
	ErrUnsupported = errors.New("not supported")

	// ErrUndeclaredVariable is wrapped when a jinja template uses a variable that the caller
	// did not declare with WithVariables.
	ErrUndeclaredVariable = errors.New("undeclared jinja variable")

	// ErrTooLarge is wrapped when data exceeds a bound: the user data given to Parse, a document
	// decoded from it, the decoded values (WithMaxSize), the YAML nodes, the MIME parts, a jinja
	// variable value (see the package documentation), or the result of EncodeUserData.
	ErrTooLarge = errors.New("too large")
)

// FieldError is an error about one field of the user data. Path names the module, the item
// index and the field, for example write_files[3].permissions; errors.Is works on Err.
type FieldError struct {
	// Path is the location of the field, for example "users[0].groups[1]".
	Path string
	// Msg says what is wrong, for example `"0x644" is not octal`.
	Msg string
	// Err is the sentinel error: ErrInvalid or ErrUnsupported.
	Err error
}

// Error returns "path: message".
func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Unwrap returns the sentinel error.
func (e *FieldError) Unwrap() error { return e.Err }

// Skip is one part of the user data that Parse left out in lenient mode.
type Skip struct {
	// Path is the module, item or field that was left out, for example "packages",
	// "users[0]" or "write_files[2].source".
	Path string
	// Reason says why, for example "module not supported".
	Reason string
}

// String returns "path (reason)".
func (s Skip) String() string { return s.Path + " (" + s.Reason + ")" }

func invalidf(path, format string, args ...any) error {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...), Err: ErrInvalid}
}

// show quotes a short, non-secret value for an error message: at most 64 bytes, one line.
func show(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q...", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

// join builds a field path: join("users[0]", "groups") is "users[0].groups".
func join(parent, field string) string {
	if parent == "" {
		return field
	}
	return parent + "." + field
}

func index(parent string, i int) string { return fmt.Sprintf("%s[%d]", parent, i) }

// hasControl reports whether s holds a control character (including a line break or NUL)
// or is not valid UTF-8.
func hasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}

// multiError is several errors on one line, separated by "; ".
type multiError []error

func (m multiError) Error() string {
	parts := make([]string, len(m))
	for i, err := range m {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

func (m multiError) Unwrap() []error { return m }

// joinErrors drops nil errors and returns nil, the only error or a multiError.
func joinErrors(errs []error) error {
	var out multiError
	for _, err := range errs {
		if err == nil {
			continue
		}
		if m, ok := err.(multiError); ok { //nolint:errorlint // flatten only our own unwrapped lists
			out = append(out, m...)
			continue
		}
		out = append(out, err)
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}
