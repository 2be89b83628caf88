package scope

import (
	"errors"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/capkit/capkit/contract"
)

func isNotFound(err error) bool { return errors.Is(err, contract.ErrFieldNotFound) }

func (s *objectScope[T]) resourcesField() contract.Field[map[string]string] {
	return contract.NewField[map[string]string](s.opts.resourcesPath...)
}

// ResourceIDs returns a copy of the resource-ID map (resource key → cloud ID), empty when there is none.
func (s *objectScope[T]) ResourceIDs() map[string]string {
	m, _, _ := getField(s.obj, s.resourcesField())
	if m == nil {
		return map[string]string{}
	}
	return maps.Clone(m)
}

// ResourceID returns the cloud ID recorded for key and whether there is one.
func (s *objectScope[T]) ResourceID(key string) (string, bool) {
	id, ok := s.ResourceIDs()[key]
	return id, ok && id != ""
}

// SetResourceID records the cloud ID of the resource key in the resource-ID map (status.resources unless
// WithResourcesPath says otherwise). It is persisted by the next PatchNow or Close. Keys are label-like names
// ("network", "vm", "lb-public"); IDs must not be empty.
func (s *objectScope[T]) SetResourceID(key, id string) error {
	if err := ValidateResourceKey(key); err != nil {
		return fmt.Errorf("cannot record a resource ID in %s: %w", s.patcher.desc, err)
	}
	if id == "" {
		return fmt.Errorf("cannot record the resource ID of %q in %s: id must not be empty: %w", key, s.patcher.desc, ErrInvalidInput)
	}
	m := s.ResourceIDs()
	if m[key] == id {
		return nil
	}
	m[key] = id
	return setField(s.obj, s.resourcesField(), s.version, m)
}

// DeleteResourceID forgets the cloud ID of key; forgetting an absent key is not an error.
func (s *objectScope[T]) DeleteResourceID(key string) error {
	m := s.ResourceIDs()
	if _, ok := m[key]; !ok {
		return nil
	}
	delete(m, key)
	if len(m) == 0 {
		return deleteField(s.obj, s.resourcesField())
	}
	return setField(s.obj, s.resourcesField(), s.version, m)
}

// ValidateResourceKey checks that key can name a resource in the resource-ID map and in cloud tags: a
// DNS-1123 label (lower-case letters, digits and '-', at most 63 characters).
func ValidateResourceKey(key string) error {
	if errs := validation.IsDNS1123Label(key); len(errs) > 0 {
		return fmt.Errorf("invalid resource key %q: %s: %w", key, errs[0], ErrInvalidInput)
	}
	return nil
}
