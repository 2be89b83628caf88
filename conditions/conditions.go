package conditions

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types shared by Cluster API providers.
const (
	// Ready is the summary condition type: True when the object does what its spec asks.
	Ready = "Ready"
	// Paused is True while reconciliation of the object is paused (CAPI v1beta2 convention).
	Paused = "Paused"
	// Deleting is True while the object is being deleted; it has negative polarity.
	Deleting = "Deleting"
)

// Limits and patterns of metav1.Condition, as enforced by the API server.
const (
	maxTypeLength     = 316
	maxTypeNameLength = 63
	maxTypePrefixLen  = 253
	maxReasonLength   = 1024
	maxMessageLength  = 32768
	typePattern       = `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`
	reasonPattern     = `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`
)

var (
	typeRE   = regexp.MustCompile(typePattern)
	reasonRE = regexp.MustCompile(reasonPattern)
)

// ErrInvalidCondition is wrapped by every error about a condition the API server would reject.
var ErrInvalidCondition = errors.New("invalid condition")

// ErrNilSetter is returned when a write is asked of a nil Setter.
var ErrNilSetter = errors.New("nil condition setter")

// Getter is an object that exposes its conditions.
type Getter interface {
	// GetConditions returns the conditions of the object; it may return nil.
	GetConditions() []metav1.Condition
}

// Setter is a Getter whose conditions can be replaced.
type Setter interface {
	Getter
	// SetConditions replaces the conditions of the object.
	SetConditions([]metav1.Condition)
}

// generationGetter is implemented by every object that embeds metav1.ObjectMeta.
type generationGetter interface {
	GetGeneration() int64
}

// sliceSetter adapts a pointer to a condition slice to Setter.
type sliceSetter struct{ p *[]metav1.Condition }

func (s sliceSetter) GetConditions() []metav1.Condition  { return *s.p }
func (s sliceSetter) SetConditions(c []metav1.Condition) { *s.p = c }

// ForSlice returns a Setter that reads and writes *p, for example &obj.Status.Conditions.
// It returns a nil Setter when p is nil, so writes fail with ErrNilSetter.
func ForSlice(p *[]metav1.Condition) Setter {
	if p == nil {
		return nil
	}
	return sliceSetter{p: p}
}

// Option changes how a condition is written.
type Option func(*options)

type options struct {
	now        func() time.Time
	generation *int64
	negative   map[string]bool
}

func newOptions(opts []Option) options {
	o := options{now: time.Now, negative: map[string]bool{}}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// withClock sets the clock that gives LastTransitionTime; the default is time.Now.
// A nil func keeps the default.
func withClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
		}
	}
}

// WithTime makes every LastTransitionTime written be t; for tests and examples.
func WithTime(t time.Time) Option {
	return withClock(func() time.Time { return t })
}

// WithObservedGeneration sets ObservedGeneration of written conditions to g, overriding the
// condition's own value and the generation of the object.
func WithObservedGeneration(g int64) Option {
	return func(o *options) { o.generation = &g }
}

// WithNegativePolarity tells SetSummary that for these condition types True is bad and False is good.
func WithNegativePolarity(types ...string) Option {
	return func(o *options) {
		for _, t := range types {
			o.negative[t] = true
		}
	}
}

// Set inserts c or replaces the condition of the same type, keeps the list sorted (see Sort),
// and reports whether the conditions changed, so callers can skip a write when they did not.
//
// An empty Reason becomes ReasonUnspecified. LastTransitionTime is kept when the condition
// exists with the same Status (even if Reason or Message change); otherwise it is c's own
// non-zero LastTransitionTime or the clock's time, truncated to seconds. ObservedGeneration
// comes from WithObservedGeneration, else from c when non-zero, else from s.GetGeneration()
// when s has that method. An invalid condition is never written: the error wraps
// ErrInvalidCondition and names the field and the value.
func Set(s Setter, c metav1.Condition, opts ...Option) (bool, error) {
	if isNil(s) {
		return false, fmt.Errorf("cannot set condition %q: %w", c.Type, ErrNilSetter)
	}
	o := newOptions(opts)
	if c.Reason == "" {
		c.Reason = ReasonUnspecified
	}
	switch {
	case o.generation != nil:
		c.ObservedGeneration = *o.generation
	case c.ObservedGeneration == 0:
		if g, ok := s.(generationGetter); ok {
			c.ObservedGeneration = g.GetGeneration()
		}
	}
	if err := validate(c); err != nil {
		return false, fmt.Errorf("cannot set condition %q: %w", c.Type, err)
	}

	old := s.GetConditions()
	next := make([]metav1.Condition, 0, len(old)+1)
	var existing *metav1.Condition
	for i := range old {
		if old[i].Type != c.Type {
			next = append(next, old[i])
		} else if existing == nil { // later duplicates of the type are dropped
			existing = &old[i]
		}
	}
	switch {
	case existing != nil && existing.Status == c.Status && !existing.LastTransitionTime.IsZero():
		c.LastTransitionTime = existing.LastTransitionTime
	case c.LastTransitionTime.IsZero():
		c.LastTransitionTime = metav1.NewTime(o.now().Truncate(time.Second))
	}
	next = append(next, c)
	Sort(next)
	if equal(old, next) {
		return false, nil
	}
	s.SetConditions(next)
	return true, nil
}

// SetTrue sets the condition of type t to True; see Set.
func SetTrue(s Setter, t, reason, message string, opts ...Option) (bool, error) {
	return setStatus(s, t, metav1.ConditionTrue, reason, message, opts)
}

// SetFalse sets the condition of type t to False; see Set.
func SetFalse(s Setter, t, reason, message string, opts ...Option) (bool, error) {
	return setStatus(s, t, metav1.ConditionFalse, reason, message, opts)
}

// SetUnknown sets the condition of type t to Unknown; see Set.
func SetUnknown(s Setter, t, reason, message string, opts ...Option) (bool, error) {
	return setStatus(s, t, metav1.ConditionUnknown, reason, message, opts)
}

// setStatus sets the condition of type t to status st; see Set.
func setStatus(s Setter, t string, st metav1.ConditionStatus, reason, message string, opts []Option) (bool, error) {
	return Set(s, metav1.Condition{Type: t, Status: st, Reason: reason, Message: message}, opts...)
}

// SetPaused sets the Paused condition the CAPI v1beta2 way: True with ReasonPaused when paused,
// False with ReasonNotPaused otherwise. The message is written as given (usually empty when not
// paused, and naming what pauses the object when paused).
func SetPaused(s Setter, paused bool, message string, opts ...Option) (bool, error) {
	if paused {
		return setStatus(s, Paused, metav1.ConditionTrue, ReasonPaused, message, opts)
	}
	return setStatus(s, Paused, metav1.ConditionFalse, ReasonNotPaused, message, opts)
}

// Delete removes the condition of type t and reports whether it was there.
func Delete(s Setter, t string) bool {
	if isNil(s) {
		return false
	}
	old := s.GetConditions()
	if !slices.ContainsFunc(old, func(c metav1.Condition) bool { return c.Type == t }) {
		return false
	}
	s.SetConditions(slices.DeleteFunc(slices.Clone(old), func(c metav1.Condition) bool { return c.Type == t }))
	return true
}

// Get returns a copy of the condition of type t, or nil when g is nil or has no such condition.
func Get(g Getter, t string) *metav1.Condition {
	if isNil(g) {
		return nil
	}
	for _, c := range g.GetConditions() {
		if c.Type == t {
			return &c
		}
	}
	return nil
}

// Has reports whether g has a condition of type t.
func Has(g Getter, t string) bool { return Get(g, t) != nil }

// IsTrue reports whether the condition of type t exists and is True.
func IsTrue(g Getter, t string) bool { return status(g, t) == metav1.ConditionTrue }

// IsFalse reports whether the condition of type t exists and is False.
func IsFalse(g Getter, t string) bool { return status(g, t) == metav1.ConditionFalse }

// IsUnknown reports whether the condition of type t is Unknown or missing.
func IsUnknown(g Getter, t string) bool {
	st := status(g, t)
	return st != metav1.ConditionTrue && st != metav1.ConditionFalse
}

// GetReason returns the reason of the condition of type t, or "" when it is missing.
func GetReason(g Getter, t string) string {
	if c := Get(g, t); c != nil {
		return c.Reason
	}
	return ""
}

// GetMessage returns the message of the condition of type t, or "" when it is missing.
func GetMessage(g Getter, t string) string {
	if c := Get(g, t); c != nil {
		return c.Message
	}
	return ""
}

func status(g Getter, t string) metav1.ConditionStatus {
	if c := Get(g, t); c != nil {
		return c.Status
	}
	return ""
}

// Sort orders conditions in place: Ready first, then by type in byte order. The order is stable
// for conditions of the same type.
func Sort(conditions []metav1.Condition) {
	slices.SortStableFunc(conditions, func(a, b metav1.Condition) int {
		switch {
		case a.Type == b.Type:
			return 0
		case a.Type == Ready:
			return -1
		case b.Type == Ready:
			return 1
		}
		return strings.Compare(a.Type, b.Type)
	})
}

func equal(a, b []metav1.Condition) bool {
	return slices.EqualFunc(a, b, func(x, y metav1.Condition) bool {
		return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason &&
			x.Message == y.Message && x.ObservedGeneration == y.ObservedGeneration &&
			x.LastTransitionTime.Equal(&y.LastTransitionTime)
	})
}

// isNil reports whether v is nil or an interface holding a nil pointer, map, slice or func.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

func validate(c metav1.Condition) error {
	if err := validateType(c.Type); err != nil {
		return err
	}
	switch c.Status {
	case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
	default:
		return invalid("status", string(c.Status), `must be "True", "False" or "Unknown"`)
	}
	if len(c.Reason) > maxReasonLength {
		return invalid("reason", c.Reason, fmt.Sprintf("must be at most %d characters", maxReasonLength))
	}
	if !reasonRE.MatchString(c.Reason) {
		return invalid("reason", c.Reason, "must match "+reasonPattern)
	}
	if len(c.Message) > maxMessageLength {
		return fmt.Errorf("invalid message of %d bytes: must be at most %d: %w", len(c.Message), maxMessageLength, ErrInvalidCondition)
	}
	if c.ObservedGeneration < 0 {
		return fmt.Errorf("invalid observedGeneration %d: must be at least 0: %w", c.ObservedGeneration, ErrInvalidCondition)
	}
	return nil
}

func validateType(t string) error {
	if t == "" {
		return invalid("type", t, "must not be empty")
	}
	if len(t) > maxTypeLength {
		return invalid("type", t, fmt.Sprintf("must be at most %d characters", maxTypeLength))
	}
	if !typeRE.MatchString(t) {
		return invalid("type", t, "must match "+typePattern)
	}
	prefix, name, found := strings.Cut(t, "/")
	if !found {
		name, prefix = prefix, ""
	}
	if len(name) > maxTypeNameLength || len(prefix) > maxTypePrefixLen {
		return invalid("type", t, fmt.Sprintf("must have a name of at most %d characters and a prefix of at most %d", maxTypeNameLength, maxTypePrefixLen))
	}
	return nil
}

func invalid(field, value, rule string) error {
	return fmt.Errorf("invalid %s %q: %s: %w", field, value, rule, ErrInvalidCondition)
}
