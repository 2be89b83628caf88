package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/capkit/capkit/redact"
)

// Credentials are the data of a credentials Secret. They never print their values: fmt, %#v, JSON and text
// marshalling show the keys only, so an accidental log line or error message leaks nothing. The bytes are
// held inside a function value, where printers that walk struct fields by reflection (go-spew, testify's
// diffs, k8s.io/apimachinery/pkg/util/dump) cannot reach them either.
type Credentials struct {
	held func() *credentialsData
	// _ makes Credentials two words, too large to be stored directly in an interface's data word. go-spew
	// (methods on, its default) calls String on an "addressable copy" it makes with unsafe, and for a value
	// stored directly in an interface that copy's address is the value itself: String ran on a wrong pointer
	// and the process died of a fault no recover catches. A zero-size field would not do: Go stores a struct
	// of one pointer and zero-size fields directly too.
	_ uintptr
}

type credentialsData struct {
	data        map[string][]byte
	keys        []string
	fingerprint string
}

// NewCredentials returns Credentials holding a copy of data.
func NewCredentials(data map[string][]byte) Credentials {
	d := &credentialsData{data: make(map[string][]byte, len(data)), keys: slices.Sorted(maps.Keys(data))}
	h := sha256.New()
	for _, k := range d.keys {
		d.data[k] = slices.Clone(data[k])
		fmt.Fprintf(h, "%d:%s=%d:", len(k), k, len(data[k]))
		h.Write(data[k])
	}
	d.fingerprint = hex.EncodeToString(h.Sum(nil))
	return Credentials{held: func() *credentialsData { return d }}
}

// get returns the data; empty for the zero Credentials.
func (c Credentials) get() *credentialsData {
	if c.held == nil {
		return &credentialsData{}
	}
	return c.held()
}

// register registers every value with r, so that what leaves the reconcile never shows them.
func (c Credentials) register(r *redact.Redactor) {
	for _, v := range c.get().data {
		r.Add(v)
	}
}

// Get returns a copy of the value of key, nil when it is missing.
func (c Credentials) Get(key string) []byte { return slices.Clone(c.get().data[key]) }

// Keys returns the keys, sorted.
func (c Credentials) Keys() []string { return slices.Clone(c.get().keys) }

// Equal reports whether c and o hold the same data (by a SHA-256 fingerprint; the fingerprint itself is
// not exposed).
func (c Credentials) Equal(o Credentials) bool { return c.get().fingerprint == o.get().fingerprint }

// String shows the keys only.
func (c Credentials) String() string {
	return "Credentials{keys: [" + strings.Join(c.Keys(), " ") + "], values: <redacted>}"
}

// GoString shows the keys only, for %#v.
func (c Credentials) GoString() string { return c.String() }

// Format shows the keys only, for every verb.
func (c Credentials) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// MarshalJSON shows the keys only.
func (c Credentials) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Keys   []string `json:"keys"`
		Values string   `json:"values"`
	}{c.Keys(), "<redacted>"})
}

// MarshalText shows the keys only.
func (c Credentials) MarshalText() ([]byte, error) { return []byte(c.String()), nil }
