package inplace

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// This file compares two objects below a base path (spec, or spec.template.spec) as Cluster API does after
// applying an extension's patches (go-cmp on the decoded JSON: a field absent differs from a field null or
// {}, int64 1 differs from float64 1), and writes the JSON patch that turns one into the other.
//
// Costs are linear in the request: the walk keeps one path stack and copies it only for a change it keeps, it
// descends only along the Mutable paths (below a Mutable field the value is compared and, when it differs,
// replaced whole; elsewhere the first difference declines at once), and every value the patch carries is a
// value of the desired object, written once.

// change is one difference below the base path at or above a Mutable field: the field only in desired (add),
// only in current (remove), or in both with other values (replace, with the whole desired value).
type change struct {
	path  []string // below the base path
	op    string
	value any // desired value for add and replace
}

// value is what an object holds at a path: nothing, a value, or an invalid path (a field on the way is not
// a map).
type value struct {
	v       any
	found   bool
	invalid bool
}

// at reads u at path without copying.
func at(u *unstructured.Unstructured, path []string) value {
	if u == nil {
		return value{}
	}
	var cur any = u.Object
	for _, f := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return value{invalid: true, found: true}
		}
		if cur, ok = m[f]; !ok {
			return value{}
		}
	}
	return value{v: cur, found: true}
}

// compared is the outcome of a comparison: the changes under Mutable fields, or the path of the first
// difference that no Mutable field covers (declined).
type compared struct {
	changes  []change
	declined []string
	refused  bool
}

// compare walks current and desired in the order of sorted map keys. With mutable nil, every difference
// declines.
func compare(current, desired value, mutable [][]string) compared {
	if current.invalid || desired.invalid {
		return compared{declined: []string{}, refused: true}
	}
	w := walker{mutable: mutable}
	w.walk(current, desired)
	return w.out
}

type walker struct {
	mutable [][]string
	path    []string // the stack of the walk: one slice, pushed and popped
	out     compared
}

// walk compares cur and des at w.path; it returns false when a difference declined.
func (w *walker) walk(cur, des value) bool {
	switch {
	case !cur.found && !des.found:
		return true
	case covered(w.path, w.mutable):
		if cur.found && des.found && equal(cur.v, des.v) {
			return true
		}
		op := "replace"
		switch {
		case !cur.found:
			op = "add"
		case !des.found:
			op = "remove"
		}
		w.out.changes = append(w.out.changes, change{path: slices.Clone(w.path), op: op, value: des.v})
		return true
	case !cur.found || !des.found || !prefixOfMutable(w.path, w.mutable):
		// Added, removed, or a field no Mutable path lies under: any difference declines.
		if cur.found && des.found && !firstDifference(&w.path, cur.v, des.v) {
			return true
		}
		w.out.declined, w.out.refused = slices.Clone(w.path), true
		return false
	}
	cm, cok := cur.v.(map[string]any)
	dm, dok := des.v.(map[string]any)
	if !cok || !dok {
		if equal(cur.v, des.v) {
			return true
		}
		w.out.declined, w.out.refused = slices.Clone(w.path), true
		return false
	}
	for _, k := range unionKeys(cm, dm) {
		cv, cf := cm[k]
		dv, df := dm[k]
		w.path = append(w.path, k)
		ok := w.walk(value{v: cv, found: cf}, value{v: dv, found: df})
		w.path = w.path[:len(w.path)-1]
		if !ok {
			return false
		}
	}
	return true
}

// firstDifference reports whether a and b differ; when they do, it leaves on *path the path below it of the
// first difference in sorted key order (the whole value when they differ in type or a list differs).
func firstDifference(path *[]string, a, b any) bool {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		return !equal(a, b)
	}
	// No equal(am, bm) first: on a deep chain that would compare each level's subtree again (depth × size).
	for _, k := range unionKeys(am, bm) {
		av, af := am[k]
		bv, bf := bm[k]
		*path = append(*path, k)
		if af != bf || firstDifference(path, av, bv) {
			return true
		}
		*path = (*path)[:len(*path)-1]
	}
	return false
}

// equal compares decoded JSON values as go-cmp does (int64 1 is not float64 1) without allocating.
func equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case string, int64, float64, bool, nil:
		return a == b
	default:
		return reflect.DeepEqual(a, b)
	}
}

// unionKeys are the keys of a and b, sorted.
func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, max(len(a), len(b)))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// covered reports whether a Mutable path is a prefix of p; an empty one (invalid) covers nothing.
func covered(p []string, mutable [][]string) bool {
	for _, m := range mutable {
		if len(m) > 0 && len(m) <= len(p) && slices.Equal(m, p[:len(m)]) {
			return true
		}
	}
	return false
}

// prefixOfMutable reports whether p is a strict prefix of a Mutable path: a change below p may be covered.
func prefixOfMutable(p []string, mutable [][]string) bool {
	for _, m := range mutable {
		if len(p) < len(m) && slices.Equal(p, m[:len(p)]) {
			return true
		}
	}
	return false
}

// jsonPatch writes the RFC 6902 patch of changes, at base+path of each change.
func jsonPatch(base []string, changes []change) ([]byte, error) {
	type operation struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value,omitempty"`
	}
	ops := make([]operation, 0, len(changes))
	for _, c := range changes {
		op := operation{Op: c.op, Path: pointer(base, c.path)}
		if c.op != "remove" {
			v, err := json.Marshal(c.value)
			if err != nil {
				return nil, fmt.Errorf("cannot encode the value of %s: %w", fieldPath(append(slices.Clip(base), c.path...)), err)
			}
			op.Value = v
		}
		ops = append(ops, op)
	}
	return json.Marshal(ops)
}

// pointer is the RFC 6901 JSON pointer of base and then path.
func pointer(base, path []string) string {
	var b strings.Builder
	r := strings.NewReplacer("~", "~0", "/", "~1")
	for _, f := range slices.Concat(base, path) {
		b.WriteByte('/')
		b.WriteString(r.Replace(f))
	}
	return b.String()
}

// maxMessagePath bounds the fields a message names: a deeper difference is named by its first fields and "…".
const maxMessagePath = 32

// fieldPath writes path for messages: spec.template.spec.tags["kubernetes.io/role"].
func fieldPath(path []string) string {
	var b strings.Builder
	for i, f := range path {
		if i == maxMessagePath {
			b.WriteString("…")
			break
		}
		if len(f) > 253 {
			f = f[:253] + "…"
		}
		switch {
		case f == "" || strings.ContainsAny(f, ".[]\"") || strings.ContainsFunc(f, func(r rune) bool { return r < ' ' }):
			fmt.Fprintf(&b, "[%q]", f)
		case i == 0:
			b.WriteString(f)
		default:
			b.WriteByte('.')
			b.WriteString(f)
		}
	}
	return b.String()
}

// ignoredMachineSpecFields are the fields of a Machine spec that Cluster API leaves out when it checks that
// an extension covered every change (CleanupMachineSpecForDiff in internal/util/inplace of Cluster API
// v1.14): they never need an in-place update. Everything else (version, failureDomain, fields of later
// versions) counts.
var ignoredMachineSpecFields = []string{
	"clusterName", "bootstrap", "infrastructureRef", "providerID", "minReadySeconds", "readinessGates", "taints",
}

var ignoredMachineDeletionFields = []string{
	"nodeDrainTimeoutSeconds", "nodeVolumeDetachTimeoutSeconds", "nodeDeletionTimeoutSeconds",
}

// machineSpecForDiff returns a shallow copy of a Machine spec without the ignored fields; a deletion struct
// left empty is dropped, as Cluster API's typed struct marshals it.
func machineSpecForDiff(v value) value {
	m, ok := v.v.(map[string]any)
	if !ok {
		return v
	}
	c := make(map[string]any, len(m))
	for k, f := range m {
		if !slices.Contains(ignoredMachineSpecFields, k) {
			c[k] = f
		}
	}
	if d, ok := m["deletion"].(map[string]any); ok {
		dc := make(map[string]any, len(d))
		for k, f := range d {
			if !slices.Contains(ignoredMachineDeletionFields, k) {
				dc[k] = f
			}
		}
		if len(dc) == 0 {
			delete(c, "deletion")
		} else {
			c["deletion"] = dc
		}
	}
	return value{v: c, found: true}
}
