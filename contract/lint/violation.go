package lint

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// ErrViolations is wrapped by the error of Violations.Err, so callers can tell a contract failure from an I/O
// error with errors.Is.
var ErrViolations = errors.New("contract violations")

// Violation is one way an object, CRD, Go type or file breaks the contract.
type Violation struct {
	// Rule is a stable rule identifier, e.g. "crd.status-subresource" or "infracluster.provisioned".
	Rule string
	// Object is what was checked: "kind/name" (e.g. "CustomResourceDefinition/memclusters.infrastructure.example.com")
	// or a Go type name.
	Object string
	// Path is the field path or file location the violation is about; it may be empty.
	Path string
	// Message says what is wrong and what to do, on one line. It never contains secret or bootstrap data.
	Message string
}

// String returns the violation on one line: "object: rule: path: message" (the path is left out when empty). An
// object, rule or path that is not printable text is quoted, with Go escapes; line breaks in the message become
// spaces and its other characters that are not printable Go escapes, so the result is one line of printable text.
func (v Violation) String() string {
	var b strings.Builder
	if v.Object != "" {
		b.WriteString(QuoteName(v.Object))
		b.WriteString(": ")
	}
	b.WriteString(QuoteName(v.Rule))
	if v.Path != "" {
		b.WriteString(": ")
		b.WriteString(QuoteName(v.Path))
	}
	if v.Message != "" {
		b.WriteString(": ")
		b.WriteString(EscapeText(v.Message))
	}
	return b.String()
}

// Violations is a list of contract violations. The nil list means the subject follows the contract.
type Violations []Violation

// Sort orders the violations by object, path, rule and message, for deterministic output.
func (vs Violations) Sort() {
	slices.SortStableFunc(vs, Violation.Compare)
}

// Sorted returns a sorted copy of the violations.
func (vs Violations) Sorted() Violations {
	out := slices.Clone(vs)
	out.Sort()
	return out
}

// Strings returns each violation's String, in list order.
func (vs Violations) Strings() []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// Rules returns the distinct rule identifiers of the violations, sorted.
func (vs Violations) Rules() []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Has reports whether one of the violations is of rule.
func (vs Violations) Has(rule string) bool {
	return slices.ContainsFunc(vs, func(v Violation) bool { return v.Rule == rule })
}

// Filter returns the violations for which keep returns true.
func (vs Violations) Filter(keep func(Violation) bool) Violations {
	var out Violations
	for _, v := range vs {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// String returns the violations as text, one per line, sorted. Violations deliberately does not implement
// error (a nil list in an error interface is not nil); use Err.
func (vs Violations) String() string {
	return strings.Join(vs.Sorted().Strings(), "\n")
}

// Err returns nil when there are no violations, otherwise a *ViolationsError that lists them sorted and wraps
// ErrViolations.
func (vs Violations) Err() error {
	if len(vs) == 0 {
		return nil
	}
	return &ViolationsError{Violations: vs.Sorted()}
}

// ViolationsError is the error of Violations.Err; get the list back with errors.As.
type ViolationsError struct {
	// Violations are the violations, sorted.
	Violations Violations
}

// Error returns a count line followed by one line per violation.
func (e *ViolationsError) Error() string {
	n := len(e.Violations)
	head := "1 contract violation"
	if n != 1 {
		head = strconv.Itoa(n) + " contract violations"
	}
	return head + ":\n" + e.Violations.String()
}

// Unwrap returns ErrViolations.
func (e *ViolationsError) Unwrap() error { return ErrViolations }

// Compare orders v before w by object, path, rule and message, as Violations.Sort does: it returns -1, 0 or +1.
func (v Violation) Compare(w Violation) int {
	a, b := v, w
	return cmp.Or(
		cmp.Compare(a.Object, b.Object),
		cmp.Compare(a.Path, b.Path),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Message, b.Message),
	)
}
