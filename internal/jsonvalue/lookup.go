package jsonvalue

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotFound means a field, or one of its parents, is absent or null. Package contract exports it as
// ErrFieldNotFound.
var ErrNotFound = errors.New("field not found")

// ErrWrongType means a field, or one of its parents, has another JSON type than asked. Package contract exports
// it as ErrFieldType.
var ErrWrongType = errors.New("field has the wrong type")

// Lookup walks path in obj without copying. It returns ErrNotFound when a step is absent or null and
// ErrWrongType, naming the parent in dotted form, when a parent is not an object.
func Lookup(obj map[string]any, path []string) (any, error) {
	var cur any = obj
	for i, name := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: %q is %s, not an object", ErrWrongType, strings.Join(path[:i], "."), KindOf(cur))
		}
		next, found := m[name]
		if !found || next == nil {
			return nil, ErrNotFound
		}
		cur = next
	}
	return cur, nil
}
