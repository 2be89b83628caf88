package cloud

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Redacted replaces a secret access key wherever Credentials are printed or marshalled.
const Redacted = "<redacted>"

// Credentials are the access key of an account, returned by Cloud.CreateAccount and
// Cloud.RotateCredentials. API calls carry them on their context (WithCredentials).
//
// Credentials never print their secret: fmt (every verb, %v, %+v, %#v, %s and %q included),
// String, GoString, MarshalJSON and MarshalText show the AccessKeyID and Redacted in place of
// a non-empty SecretAccessKey, so logs, errors, events and JSON stay free of it. A value held
// in an unexported field of another struct is the exception: fmt prints such fields by
// reflection, without calling their methods.
type Credentials struct {
	// AccessKeyID names the key, for example "MCAK0123456789ABCDEF". It is not secret.
	AccessKeyID string
	// SecretAccessKey proves the key. It is never printed nor marshalled.
	SecretAccessKey string
}

// secret returns what is shown in place of the secret: Redacted, or "" when there is none.
func (c Credentials) secret() string {
	if c.SecretAccessKey == "" {
		return ""
	}
	return Redacted
}

// String returns the credentials as %v prints a struct, with the secret redacted:
// "{MCAK0123456789ABCDEF <redacted>}".
func (c Credentials) String() string {
	return fmt.Sprintf("{%s %s}", c.AccessKeyID, c.secret())
}

// GoString returns the credentials as %#v prints a struct, with the secret redacted:
// `cloud.Credentials{AccessKeyID:"MCAK0123456789ABCDEF", SecretAccessKey:"<redacted>"}`.
func (c Credentials) GoString() string {
	return fmt.Sprintf("cloud.Credentials{AccessKeyID:%q, SecretAccessKey:%q}", c.AccessKeyID, c.secret())
}

// Format implements fmt.Formatter so that no verb prints the secret: %v and %s print String,
// %+v adds the field names, %#v prints GoString, %q quotes String; width, precision and flags
// apply to that text. Other verbs print "%!x(cloud.Credentials={… <redacted>})", as fmt does
// for a verb that does not fit.
func (c Credentials) Format(f fmt.State, verb rune) {
	var s string
	switch {
	case verb == 'v' && f.Flag('#'):
		s = c.GoString()
	case verb == 'v' && f.Flag('+'):
		s = fmt.Sprintf("{AccessKeyID:%s SecretAccessKey:%s}", c.AccessKeyID, c.secret())
	case verb == 'v' || verb == 's':
		s = c.String()
	case verb == 'q':
		_, _ = fmt.Fprintf(f, fmt.FormatString(f, 'q'), c.String())
		return
	default:
		_, _ = fmt.Fprintf(f, "%%!%c(cloud.Credentials=%s)", verb, c.String())
		return
	}
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, 's'), s)
}

// MarshalJSON returns {"AccessKeyID":"…","SecretAccessKey":"<redacted>"} (json.Marshal escapes
// the brackets as \u003c and \u003e unless its encoder's SetEscapeHTML is false). There is no
// UnmarshalJSON: credentials decode from JSON with these field names as any struct does.
func (c Credentials) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// The caller's encoder escapes the brackets, or not, as it is told. Encoding two strings
	// cannot fail.
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct{ AccessKeyID, SecretAccessKey string }{c.AccessKeyID, c.secret()})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// MarshalText returns String, for encoders that use encoding.TextMarshaler (YAML, map keys).
func (c Credentials) MarshalText() ([]byte, error) {
	return []byte(c.String()), nil
}

type credentialsKey struct{}

// WithCredentials returns a copy of ctx whose API calls carry creds. Once the cloud has an
// account, every API call needs valid credentials; credentials present on the context are
// always checked, even by a cloud without accounts (which knows no key and refuses them):
// see Cloud.
func WithCredentials(ctx context.Context, creds Credentials) context.Context {
	return context.WithValue(ctx, credentialsKey{}, creds)
}

// CredentialsFrom returns the credentials WithCredentials put on ctx, and whether there are
// any.
func CredentialsFrom(ctx context.Context) (Credentials, bool) {
	creds, ok := ctx.Value(credentialsKey{}).(Credentials)
	return creds, ok
}
