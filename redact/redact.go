package redact

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-logr/logr"
)

// Placeholder replaces every registered secret.
const Placeholder = "[REDACTED]"

// Lengths below which text is not registered: shorter text would mask ordinary words.
const (
	// MinSecretLength is the length, in bytes, of the shortest value Add registers.
	MinSecretLength = 4
	// MinTokenLength is the length of the shortest line or token of a value that Add registers on its own.
	MinTokenLength = 16
	// MinCutLength is the length of the shortest start of a secret that String masks at the end of a text.
	MinCutLength = 8
	// minFragmentLength is the length of the shortest base64 fragment Add registers.
	minFragmentLength = 8
)

// kubeadmToken matches kubeadm bootstrap tokens: a public id and a secret.
var kubeadmToken = regexp.MustCompile(`[a-z0-9]{6}\.([a-z0-9]{16})`)

// punctuation surrounds tokens in YAML, JSON and shell text.
const punctuation = "\"'`,;:()[]{}<>"

// Redactor replaces registered secrets in text. It is safe for concurrent use; a nil *Redactor registers
// nothing and returns text unchanged.
type Redactor struct {
	mu sync.RWMutex
	// byPrefix holds the registered patterns by their first MinSecretLength bytes, longest first.
	byPrefix map[uint32][]string
	seen     map[string]struct{}
}

// New returns a Redactor without secrets.
func New() *Redactor {
	return &Redactor{byPrefix: map[uint32][]string{}, seen: map[string]struct{}{}}
}

// Add registers secret and the forms of it listed in the package documentation.
func (r *Redactor) Add(secret []byte) {
	if r == nil || len(secret) < MinSecretLength {
		return
	}
	patterns := forms(string(secret))
	r.mu.Lock()
	defer r.mu.Unlock()
	touched := map[uint32]bool{}
	for _, p := range patterns {
		if _, ok := r.seen[p]; ok || len(p) < MinSecretLength {
			continue
		}
		r.seen[p] = struct{}{}
		k := prefix(p)
		r.byPrefix[k] = append(r.byPrefix[k], p)
		touched[k] = true
	}
	for k := range touched {
		slices.SortFunc(r.byPrefix[k], func(a, b string) int { return len(b) - len(a) }) // longest first
	}
}

// Empty reports whether no secret is registered.
func (r *Redactor) Empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.seen) == 0
}

// prefix returns the first MinSecretLength bytes of s as a number.
func prefix(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// String returns s with every registered secret replaced by Placeholder; s itself when it holds none.
func (r *Redactor) String(s string) string {
	if r == nil || len(s) < MinSecretLength {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.byPrefix) == 0 {
		return s
	}
	tail := len(strings.TrimRight(s, ". \t\r\n…"))
	var b strings.Builder
	matched := false
	last, end := 0, -1 // s[:last] is written; a masked run ends at end (-1: none open)
	for i := 0; i+MinSecretLength <= len(s); i++ {
		if end >= 0 && i > end {
			b.WriteString(Placeholder)
			last, end = end, -1
		}
		for _, p := range r.byPrefix[prefix(s[i:])] {
			full := strings.HasPrefix(s[i:], p)
			// A secret cut short at the end of the text (a truncated echo, maybe followed by dots).
			cut := !full && tail-i >= MinCutLength && tail-i < len(p) && strings.HasPrefix(p, s[i:tail])
			if !full && !cut {
				continue
			}
			if end < 0 {
				b.WriteString(s[last:i])
			}
			matched = true
			if cut {
				end = max(end, tail)
				continue
			}
			end = max(end, i+len(p))
			break
		}
	}
	if !matched {
		return s
	}
	if end >= 0 {
		b.WriteString(Placeholder)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// Error returns err with its message redacted; err itself when its message holds no secret. The returned
// error wraps err, so errors.Is and errors.As still classify it (terminal, throttled).
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := r.String(msg)
	if red == msg {
		return err
	}
	return &redactedError{msg: red, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// forms returns the patterns that stand for secret v.
func forms(v string) []string {
	out := []string{v, strings.TrimSpace(v), quoted(v), jsonQuoted(v)}
	out = append(out, encodings(v, minFragmentLength)...)
	for _, line := range strings.Split(v, "\n") {
		if line = strings.TrimSpace(line); len(line) >= MinTokenLength {
			out = append(out, line)
		}
	}
	for _, tok := range strings.Fields(v) {
		if len(tok) < MinTokenLength {
			continue
		}
		out = append(out, tok)
		if trimmed := strings.Trim(tok, punctuation); len(trimmed) >= MinTokenLength {
			out = append(out, trimmed)
			out = append(out, encodings(trimmed, MinTokenLength)...)
		}
	}
	for _, m := range kubeadmToken.FindAllStringSubmatch(v, -1) {
		for _, t := range m {
			out = append(out, t)
			out = append(out, encodings(t, MinTokenLength)...)
		}
	}
	return out
}

// quoted returns v as Go's %q writes it, without the quotes.
func quoted(v string) string {
	q := strconv.Quote(v)
	return q[1 : len(q)-1]
}

// jsonQuoted returns v as a JSON string, without the quotes.
func jsonQuoted(v string) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) < 2 {
		return v
	}
	return string(b[1 : len(b)-1])
}

// encodings returns the base64 forms of t: its whole encodings, and for each of the three alignments t can
// have inside a longer base64 stream, the characters that depend on t's bytes only; fragments shorter than
// minLen are dropped.
func encodings(t string, minLen int) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString([]byte(t)))
		raw := enc.WithPadding(base64.NoPadding)
		for o := range 3 {
			buf := make([]byte, o+len(t))
			copy(buf[o:], t)
			e := raw.EncodeToString(buf)
			// Character k holds bits [6k, 6k+6) of the stream; t's bits are [8o, 8(o+len(t))).
			first, end := (8*o+5)/6, 8*(o+len(t))/6
			if end-first >= minLen {
				out = append(out, e[first:end])
			}
		}
	}
	return out
}

type contextKey struct{}

// NewContext returns ctx carrying r, the Redactor of the reconcile ctx belongs to.
func NewContext(ctx context.Context, r *Redactor) context.Context {
	return context.WithValue(ctx, contextKey{}, r)
}

// FromContext returns the Redactor of ctx; nil (which redacts nothing) when there is none.
func FromContext(ctx context.Context) *Redactor {
	r, _ := ctx.Value(contextKey{}).(*Redactor)
	return r
}

// QuietContext returns ctx with a logger that discards everything, for reading or writing a Secret:
// client-go logs request and response bodies (the Secret's data, base64-encoded) through the context's
// logger at verbosity 8 and above.
func QuietContext(ctx context.Context) context.Context {
	return logr.NewContext(ctx, logr.Discard())
}
