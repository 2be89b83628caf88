package conditions

import (
	"fmt"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SetSummary sets the Ready condition of s from the step conditions named in forConditionTypes,
// and reports whether the conditions changed. A step is good when it is True, or False for the
// types given to WithNegativePolarity (such as Deleting or Paused). The rules, first match wins:
//
//   - a step that exists and is bad → Ready=False, reason ReasonNotReady;
//   - a step that is Unknown → Ready=Unknown, reason ReasonReadyUnknown;
//   - a step that is missing → Ready=Unknown, reason ReasonStepsNotReported;
//   - otherwise → Ready=True, reason ReasonReady, empty message.
//
// The message lists every step that is not good, in the order of forConditionTypes, joined by
// "; ": "<Type>: <message>", or "<Type> is <Status> (<Reason>)" when the step has no message,
// or "<Type> not reported" when it is missing. Messages longer than the API limit are cut.
// Duplicate types are counted once. Options are those of Set, plus WithNegativePolarity.
func SetSummary(s Setter, forConditionTypes []string, opts ...Option) (bool, error) {
	if isNil(s) {
		return false, fmt.Errorf("cannot set summary %q: %w", Ready, ErrNilSetter)
	}
	if len(forConditionTypes) == 0 {
		return false, fmt.Errorf("cannot set summary %q: invalid forConditionTypes: must not be empty: %w", Ready, ErrInvalidCondition)
	}
	o := newOptions(opts)
	var bad, unknown, missing int
	var parts []string
	seen := make(map[string]bool, len(forConditionTypes))
	for _, t := range forConditionTypes {
		if seen[t] {
			continue
		}
		seen[t] = true
		if t == Ready {
			return false, fmt.Errorf("cannot set summary %q: %w", Ready, invalid("forConditionTypes entry", t, "must not be the summary itself"))
		}
		if err := validateType(t); err != nil {
			return false, fmt.Errorf("cannot set summary %q: %w", Ready, err)
		}
		c := Get(s, t)
		switch {
		case c == nil:
			missing++
			parts = append(parts, t+" not reported")
		case c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse:
			unknown++
			parts = append(parts, describe(c))
		case (c.Status == metav1.ConditionTrue) == o.negative[t]:
			bad++
			parts = append(parts, describe(c))
		}
	}

	ready := metav1.Condition{Type: Ready, Message: truncate(strings.Join(parts, "; "), maxMessageLength)}
	switch {
	case bad > 0:
		ready.Status, ready.Reason = metav1.ConditionFalse, ReasonNotReady
	case unknown > 0:
		ready.Status, ready.Reason = metav1.ConditionUnknown, ReasonReadyUnknown
	case missing > 0:
		ready.Status, ready.Reason = metav1.ConditionUnknown, ReasonStepsNotReported
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, ReasonReady
	}
	return Set(s, ready, opts...)
}

// describe names a step that is not good, for the summary message.
func describe(c *metav1.Condition) string {
	if c.Message != "" {
		return c.Type + ": " + c.Message
	}
	if c.Reason == "" {
		return fmt.Sprintf("%s is %s", c.Type, c.Status)
	}
	return fmt.Sprintf("%s is %s (%s)", c.Type, c.Status, c.Reason)
}

// truncate cuts s to at most limit bytes on a rune boundary, ending it with "..." when cut.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ellipsis = "..."
	cut := limit - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
