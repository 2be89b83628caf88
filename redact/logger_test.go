package redact_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"

	"github.com/capkit/capkit/redact"
)

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

type marshaler struct{ s string }

func (m marshaler) MarshalLog() any { return map[string]string{"v": m.s} }

type plain struct{ Data string }

func TestLoggerRedactsMessagesAndValues(t *testing.T) {
	var out strings.Builder
	base := funcr.New(func(prefix, args string) { out.WriteString(prefix + " " + args + "\n") }, funcr.Options{Verbosity: 100})
	r := redact.New()
	log := r.Logger(base).WithValues("early", "bound before "+token+" was registered")
	r.Add([]byte(token))
	log = log.WithName("step").WithValues("late", []byte("bytes "+token))
	log.V(100).Info("created with "+token, "string", token, "error", fmt.Errorf("echo: %s", token),
		"stringer", stringer{token}, "marshaler", marshaler{token}, "struct", plain{Data: token}, "pointer", &plain{Data: token},
		"number", 42, "clean", "no secret here")
	log.Error(errors.New("cloud: "+token), "failed "+token, "k", token)
	got := out.String()
	assert.NotContains(t, got, "0123456789abcdef")
	assert.Contains(t, got, "no secret here")
	assert.Contains(t, got, `"number"=42`)
	assert.True(t, strings.HasPrefix(got, "step "), "names pass through")
	assert.Equal(t, 14, strings.Count(got, redact.Placeholder), got)
}

func TestLoggerWithoutSecretsIsUnchanged(t *testing.T) {
	var a, b strings.Builder
	opts := funcr.Options{Verbosity: 1}
	plainLog := funcr.New(func(p, args string) { a.WriteString(p + args) }, opts)
	wrapped := redact.New().Logger(funcr.New(func(p, args string) { b.WriteString(p + args) }, opts))
	for _, l := range []logr.Logger{plainLog, wrapped} {
		l.WithValues("k", "v").V(1).Info("hello", "n", 1, "s", plain{Data: "x"})
		l.V(2).Info("not shown")
	}
	assert.Equal(t, a.String(), b.String())
	var none *redact.Redactor
	assert.Equal(t, plainLog, none.Logger(plainLog))
}

func TestQuietContextDiscardsTheLogger(t *testing.T) {
	var out strings.Builder
	ctx := logr.NewContext(t.Context(), funcr.New(func(p, args string) { out.WriteString(args) }, funcr.Options{Verbosity: 10}))
	logr.FromContextOrDiscard(redact.QuietContext(ctx)).V(8).Info("Response Body", "body", token)
	assert.Empty(t, out.String())
	r := redact.New()
	assert.Same(t, r, redact.FromContext(redact.NewContext(ctx, r)))
	assert.Nil(t, redact.FromContext(ctx))
}
