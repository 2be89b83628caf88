package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	jsonpatch "github.com/evanphx/json-patch/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// snapshot is a deep copy of the object as last read or written, and its JSON split at the top level,
// built on first use: as it marshals (raw) and after a round trip through its Go type (canon).
type snapshot struct {
	obj        client.Object
	raw, canon map[string]json.RawMessage
}

func newSnapshot(obj client.Object) (*snapshot, error) {
	c, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return nil, fmt.Errorf("cannot copy %T: DeepCopyObject does not return a client.Object", obj)
	}
	return &snapshot{obj: c}, nil
}

func (s *snapshot) json() (map[string]json.RawMessage, error) {
	if s.raw == nil {
		raw, err := topLevel(s.obj)
		if err != nil {
			return nil, err
		}
		s.raw = raw
	}
	return s.raw, nil
}

func (s *snapshot) canonical() (map[string]json.RawMessage, error) {
	if s.canon == nil {
		canon, err := canonicalTopLevel(s.obj)
		if err != nil {
			return nil, err
		}
		s.canon = canon
	}
	return s.canon, nil
}

// changed forgets the JSON after the snapshot object was modified in place.
func (s *snapshot) changed() { s.raw, s.canon = nil, nil }

func topLevel(obj client.Object) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot encode %T: %w", obj, err)
	}
	return split(obj, b)
}

func split(obj client.Object, b []byte) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("cannot decode %T: %w", obj, err)
	}
	return out, nil
}

// canonicalTopLevel is topLevel of obj after a round trip through JSON and its Go type: what a client reads
// back after the server stored obj. The round trip forgets what the Go type cannot tell from its absence,
// such as an empty list, marked omitempty, in a struct marked omitzero: the struct marshals as {} with the
// list and is omitted without it, but decodes to the same value from both.
func canonicalTopLevel(obj client.Object) (map[string]json.RawMessage, error) {
	t := reflect.TypeOf(obj)
	if _, ok := obj.(*unstructured.Unstructured); ok || t.Kind() != reflect.Pointer {
		return topLevel(obj) // JSON already: the round trip changes nothing
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot encode %T: %w", obj, err)
	}
	fresh := reflect.New(t.Elem()).Interface()
	if err := json.Unmarshal(b, fresh); err != nil {
		return nil, fmt.Errorf("cannot decode %T: %w", obj, err)
	}
	if b, err = json.Marshal(fresh); err != nil {
		return nil, fmt.Errorf("cannot encode %T: %w", obj, err)
	}
	return split(obj, b)
}

// forgettable reports whether a patch may hold a change that a round trip through the Go type forgets: one
// that sets an empty object or removes a field. Only such a patch is checked against the canonical JSON,
// so that the diff of every other change costs no round trip.
func forgettable(p []byte) bool {
	return p != nil && (bytes.Contains(p, []byte("{}")) || bytes.Contains(p, []byte("null")))
}

// delta is what Patch would send: the merge patches of metadata-and-spec and of status (nil when a part
// did not change), and which guarded lists changed: the finalizers and write-once labels guard the main
// patch, the conditions the status patch.
type delta struct {
	main, status                      []byte
	conditions, finalizers, writeOnce bool
}

// serverFields are metadata a client never patches.
var serverFields = []string{"resourceVersion", "generation", "uid", "creationTimestamp", "managedFields",
	"selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}

func (h *Helper) diff(obj client.Object) (*delta, error) {
	d := &delta{}
	if h.main == h.status && equalTree(h.main.obj, obj) {
		return d, nil // the common no-op reconcile: no JSON at all
	}
	var err error
	if d.conditions, err = h.conditionsChanged(obj); err != nil {
		return nil, err
	}
	d.finalizers = !slices.Equal(h.main.obj.GetFinalizers(), obj.GetFinalizers())
	for _, l := range h.opts.writeOnce {
		if h.main.obj.GetLabels()[l] != obj.GetLabels()[l] {
			d.writeOnce = true
		}
	}
	after, err := topLevel(obj)
	if err != nil {
		return nil, err
	}
	mainBefore, err := h.main.json()
	if err != nil {
		return nil, err
	}
	statusBefore, err := h.status.json()
	if err != nil {
		return nil, err
	}
	if err := d.patches(mainBefore, statusBefore, after); err != nil {
		return nil, err
	}
	if !forgettable(d.main) && !forgettable(d.status) {
		return d, nil
	}
	// What marshals differently but reads back the same is no change (and the API server may refuse it:
	// an empty object where required fields are missing).
	if after, err = canonicalTopLevel(obj); err != nil {
		return nil, err
	}
	if mainBefore, err = h.main.canonical(); err != nil {
		return nil, err
	}
	if statusBefore, err = h.status.canonical(); err != nil {
		return nil, err
	}
	if err := d.patches(mainBefore, statusBefore, after); err != nil {
		return nil, err
	}
	return d, nil
}

// patches sets the main and the status patch of d from the top-level JSON of the snapshots and the object.
func (d *delta) patches(mainBefore, statusBefore, after map[string]json.RawMessage) error {
	var err error
	if d.main, err = mainPatch(mainBefore, after); err != nil {
		return err
	}
	d.status, err = statusPatch(statusBefore["status"], after["status"])
	return err
}

func (h *Helper) conditionsChanged(obj client.Object) (bool, error) {
	if h.conds == nil {
		return false, nil
	}
	before, err := h.conds.get(h.status.obj)
	if err != nil {
		return false, err
	}
	after, err := h.conds.get(obj)
	if err != nil {
		return false, err
	}
	return !equalConditions(before, after), nil
}

func equalConditions(a, b []metav1.Condition) bool {
	return len(a) == len(b) && (len(a) == 0 || equalTree(a, b))
}

// mainPatch returns the merge patch of every top-level field but status, nil when there is none.
func mainPatch(before, after map[string]json.RawMessage) ([]byte, error) {
	out := map[string]json.RawMessage{}
	for k, a := range after {
		if k == "status" {
			continue
		}
		b, found := before[k]
		switch {
		case found && bytes.Equal(a, b):
			continue
		case !found || !isObject(a) || !isObject(b):
			out[k] = a
			continue
		}
		p, err := jsonpatch.CreateMergePatch(b, a)
		if err != nil {
			return nil, fmt.Errorf("cannot diff %s: %w", k, err)
		}
		if k == "metadata" {
			if p, err = without(p, serverFields); err != nil {
				return nil, err
			}
			if p, err = keyByKey(p, b); err != nil {
				return nil, err
			}
		}
		if p != nil && !bytes.Equal(p, []byte("{}")) {
			out[k] = p
		}
	}
	for k := range before {
		if _, found := after[k]; !found && k != "status" {
			out[k] = json.RawMessage("null")
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return json.Marshal(out)
}

// statusPatch returns {"status": <merge patch>}, nil when status did not change.
func statusPatch(before, after json.RawMessage) ([]byte, error) {
	if bytes.Equal(before, after) {
		return nil, nil
	}
	if !isObject(before) {
		before = json.RawMessage("{}")
	}
	if !isObject(after) {
		after = json.RawMessage("{}")
	}
	p, err := jsonpatch.CreateMergePatch(before, after)
	if err != nil {
		return nil, fmt.Errorf("cannot diff status: %w", err)
	}
	if bytes.Equal(p, []byte("{}")) {
		return nil, nil
	}
	return json.Marshal(map[string]json.RawMessage{"status": p})
}

func isObject(b json.RawMessage) bool { return len(b) > 0 && b[0] == '{' }

// without removes keys from a JSON object; nil when nothing is left.
func without(obj []byte, keys []string) ([]byte, error) {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(obj, &m); err != nil {
		return nil, fmt.Errorf("cannot decode a metadata patch: %w", err)
	}
	n := len(m)
	for _, k := range keys {
		delete(m, k)
	}
	if len(m) == 0 {
		return nil, nil
	}
	if len(m) == n {
		return obj, nil
	}
	return json.Marshal(m)
}

// metadataMaps are the metadata maps that several writers share.
var metadataMaps = []string{"labels", "annotations"}

// keyByKey rewrites the removal of a whole metadata map (labels or annotations set to null) in the metadata
// patch p as the removal of each key the map had in before: null would also remove the keys another writer
// added since the snapshot, since an unguarded patch carries no resourceVersion.
func keyByKey(p, before []byte) ([]byte, error) {
	if !bytes.Contains(p, []byte("null")) {
		return p, nil
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(p, &m); err != nil {
		return nil, fmt.Errorf("cannot decode a metadata patch: %w", err)
	}
	var old map[string]json.RawMessage
	for _, f := range metadataMaps {
		if string(m[f]) != "null" {
			continue
		}
		if old == nil {
			if err := json.Unmarshal(before, &old); err != nil {
				return nil, fmt.Errorf("cannot decode metadata: %w", err)
			}
		}
		removed := map[string]json.RawMessage{}
		if err := json.Unmarshal(old[f], &removed); err != nil {
			return nil, fmt.Errorf("cannot decode metadata.%s: %w", f, err)
		}
		if len(removed) == 0 {
			delete(m, f) // an empty map removed: nothing to send
			continue
		}
		for key := range removed {
			removed[key] = json.RawMessage("null")
		}
		b, err := json.Marshal(removed)
		if err != nil {
			return nil, err
		}
		m[f] = b
	}
	switch {
	case old == nil:
		return p, nil
	case len(m) == 0:
		return nil, nil
	}
	return json.Marshal(m)
}

// withResourceVersion adds metadata.resourceVersion to a patch, for optimistic locking.
func withResourceVersion(body []byte, rv string) ([]byte, error) {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("cannot decode a patch: %w", err)
	}
	md := map[string]json.RawMessage{}
	if raw, ok := m["metadata"]; ok && isObject(raw) {
		if err := json.Unmarshal(raw, &md); err != nil {
			return nil, fmt.Errorf("cannot decode a metadata patch: %w", err)
		}
	}
	v, err := json.Marshal(rv)
	if err != nil {
		return nil, err
	}
	md["resourceVersion"] = v
	if m["metadata"], err = json.Marshal(md); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}
