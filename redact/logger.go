package redact

import (
	"fmt"

	"github.com/go-logr/logr"
)

// Logger returns l with every message and value redacted by r when it is written: the message, and values
// that are strings, byte slices, errors, fmt.Stringers or logr.Marshalers (other values are checked through
// their %+v form and replaced by its redacted text when it holds a secret). Values given to WithValues are
// redacted when a line is written, so a secret registered later is masked in them too. A nil r returns l.
func (r *Redactor) Logger(l logr.Logger) logr.Logger {
	if r == nil || l.GetSink() == nil {
		return l
	}
	next := l.GetSink()
	if cd, ok := next.(logr.CallDepthLogSink); ok {
		next = cd.WithCallDepth(1) // the sink's caller is one frame further: this wrapper
	}
	return l.WithSink(&sink{r: r, next: next})
}

// sink is the logr.LogSink of Logger.
type sink struct {
	r      *Redactor
	next   logr.LogSink
	values []any // from WithValues, redacted when a line is written
}

var (
	_ logr.LogSink                = (*sink)(nil)
	_ logr.CallDepthLogSink       = (*sink)(nil)
	_ logr.CallStackHelperLogSink = (*sink)(nil)
)

// Init does nothing: the wrapped sink was initialized by its own logger.
func (s *sink) Init(logr.RuntimeInfo) {}

func (s *sink) Enabled(level int) bool { return s.next.Enabled(level) }

func (s *sink) Info(level int, msg string, kv ...any) {
	s.next.Info(level, s.r.String(msg), s.redacted(kv)...)
}

func (s *sink) Error(err error, msg string, kv ...any) {
	s.next.Error(s.r.Error(err), s.r.String(msg), s.redacted(kv)...)
}

func (s *sink) WithValues(kv ...any) logr.LogSink {
	values := make([]any, 0, len(s.values)+len(kv))
	values = append(append(values, s.values...), kv...)
	return &sink{r: s.r, next: s.next, values: values}
}

func (s *sink) WithName(name string) logr.LogSink {
	return &sink{r: s.r, next: s.next.WithName(name), values: s.values}
}

func (s *sink) WithCallDepth(depth int) logr.LogSink {
	if cd, ok := s.next.(logr.CallDepthLogSink); ok {
		return &sink{r: s.r, next: cd.WithCallDepth(depth), values: s.values}
	}
	return s
}

func (s *sink) GetCallStackHelper() func() {
	if h, ok := s.next.(logr.CallStackHelperLogSink); ok {
		return h.GetCallStackHelper()
	}
	return func() {}
}

// redacted returns the values of WithValues and kv, with every value redacted.
func (s *sink) redacted(kv []any) []any {
	all := make([]any, 0, len(s.values)+len(kv))
	all = append(append(all, s.values...), kv...)
	if s.r.Empty() {
		return all
	}
	for i := range all {
		all[i] = s.r.value(all[i])
	}
	return all
}

// value returns v redacted: v itself when it holds no secret, or when formatting it panics (the sink then
// reports the panic as it would have).
func (r *Redactor) value(v any) (out any) {
	defer func() {
		if recover() != nil {
			out = v
		}
	}()
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return r.String(x)
	case []byte:
		if red := r.String(string(x)); red != string(x) {
			return red
		}
		return x
	case error:
		return r.Error(x)
	case logr.Marshaler:
		if m := x.MarshalLog(); !isMarshaler(m) {
			return r.value(m)
		}
	case fmt.Stringer:
		if s := x.String(); r.String(s) != s {
			return r.String(s)
		}
		return x
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return x
	}
	if s := fmt.Sprintf("%+v", v); r.String(s) != s {
		return r.String(s)
	}
	return v
}

func isMarshaler(v any) bool {
	_, ok := v.(logr.Marshaler)
	return ok
}
