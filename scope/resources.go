package scope

import (
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ResourceIDs returns a copy of the resource-ID map (resource key → cloud ID), empty when there is none or
// the type has no map.
func (s *objectScope[T]) ResourceIDs() map[string]string {
	if s.fields.resources == nil {
		return map[string]string{}
	}
	m := maps.Clone(s.fields.resources.GetResourceIDs())
	if m == nil {
		m = map[string]string{}
	}
	return m
}

// ResourceID returns the cloud ID recorded for key and whether there is one.
func (s *objectScope[T]) ResourceID(key string) (string, bool) {
	if s.fields.resources == nil {
		return "", false
	}
	id, ok := s.fields.resources.GetResourceIDs()[key]
	return id, ok && id != ""
}

// SetResourceID records the cloud ID of the resource key in the resource-ID map (ResourceIDsAccessor; for an
// unstructured object status.resources unless WithResourcesPath says otherwise). It writes into the map the
// object has, so a map the provider holds stays the object's. It is persisted by the next PatchNow or Close.
// Keys are label-like names ("network", "vm", "lb-public"); IDs must not be empty.
func (s *objectScope[T]) SetResourceID(key, id string) error {
	if err := ValidateResourceKey(key); err != nil {
		return fmt.Errorf("cannot record a resource ID in %s: %w", s.desc, err)
	}
	if id == "" {
		return fmt.Errorf("cannot record the resource ID of %q in %s: id must not be empty: %w", key, s.desc, ErrInvalidInput)
	}
	if err := missing(s.obj, s.fields.resources != nil, accResources); err != nil {
		return fmt.Errorf("cannot record the resource ID of %q in %s: %w", key, s.desc, err)
	}
	m := s.fields.resources.GetResourceIDs()
	if m[key] == id {
		return nil
	}
	if m == nil {
		m = map[string]string{}
	}
	m[key] = id
	s.fields.resources.SetResourceIDs(m)
	return nil
}

// DeleteResourceID forgets the cloud ID of key; forgetting an absent key is not an error.
func (s *objectScope[T]) DeleteResourceID(key string) error {
	if s.fields.resources == nil {
		return nil
	}
	m := s.fields.resources.GetResourceIDs()
	if _, ok := m[key]; !ok {
		return nil
	}
	delete(m, key) // an emptied map stays the object's: a map the provider holds stays valid
	s.fields.resources.SetResourceIDs(m)
	return nil
}

// ValidateResourceKey checks that key can name a resource in the resource-ID map and in cloud tags: a
// DNS-1123 label (lower-case letters, digits and '-', at most 63 characters).
func ValidateResourceKey(key string) error {
	if isDNSLabel(key) {
		return nil // the common case, without the regular expression
	}
	if errs := validation.IsDNS1123Label(key); len(errs) > 0 {
		return fmt.Errorf("invalid resource key %q: %s: %w", key, errs[0], ErrInvalidInput)
	}
	return nil
}

// isDNSLabel reports whether s matches [a-z0-9]([-a-z0-9]*[a-z0-9])? and has at most 63 characters.
func isDNSLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}
