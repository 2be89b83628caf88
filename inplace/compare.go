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

// change is one difference below the base path: a field only in desired (add), only in current (remove), or
// in both with other values (replace). Maps are compared key by key, everything else whole.
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

// diff lists the changes from current to desired, in a stable order (map keys sorted).
func diff(current, desired value) []change {
	if current.invalid || desired.invalid {
		return []change{{op: "replace", value: desired.v}}
	}
	return appendDiff(nil, nil, current, desired)
}

func appendDiff(out []change, path []string, cur, des value) []change {
	switch {
	case !cur.found && !des.found:
		return out
	case !cur.found:
		return append(out, change{path: path, op: "add", value: des.v})
	case !des.found:
		return append(out, change{path: path, op: "remove"})
	}
	cm, cok := cur.v.(map[string]any)
	dm, dok := des.v.(map[string]any)
	if !cok || !dok {
		if !reflect.DeepEqual(cur.v, des.v) {
			out = append(out, change{path: path, op: "replace", value: des.v})
		}
		return out
	}
	keys := make([]string, 0, len(cm)+len(dm))
	for k := range cm {
		keys = append(keys, k)
	}
	for k := range dm {
		if _, ok := cm[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		cv, cf := cm[k]
		dv, df := dm[k]
		out = appendDiff(out, append(slices.Clip(path), k), value{v: cv, found: cf}, value{v: dv, found: df})
	}
	return out
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

// jsonPatch writes the RFC 6902 patch of changes, at base+path of each change.
func jsonPatch(base []string, changes []change) ([]byte, error) {
	type operation struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value,omitempty"`
	}
	ops := make([]operation, 0, len(changes))
	for _, c := range changes {
		op := operation{Op: c.op, Path: pointer(append(slices.Clip(base), c.path...))}
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

// pointer is the RFC 6901 JSON pointer of path.
func pointer(path []string) string {
	var b strings.Builder
	r := strings.NewReplacer("~", "~0", "/", "~1")
	for _, f := range path {
		b.WriteByte('/')
		b.WriteString(r.Replace(f))
	}
	return b.String()
}

// fieldPath writes path for messages: spec.template.spec.tags["kubernetes.io/role"].
func fieldPath(path []string) string {
	var b strings.Builder
	for i, f := range path {
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

// machineSpecForDiff returns a copy of a Machine spec without the ignored fields; a deletion struct left
// empty is dropped, as Cluster API's typed struct marshals it.
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
