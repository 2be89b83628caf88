package yamlfile

import (
	"fmt"
	"strings"

	"github.com/capkit/capkit/internal/jsonvalue"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// listItems returns the items of a List object: one whose kind is List or ends in List and whose items field is a
// list, as kubectl reads it.
func listItems(obj map[string]any) ([]any, bool) {
	kind, _ := obj["kind"].(string)
	if !strings.HasSuffix(kind, "List") {
		return nil, false
	}
	items, ok := obj["items"].([]any)
	return items, ok
}

// itemLines returns the file line of each item of a List document whose map node is m, in a document that starts
// at line start; nil when the document's kind does not end in List or its items are not written as a list under an
// items key (then the List's line is used).
func itemLines(m *yamlv3.Node, start int) []int {
	if m.Kind != yamlv3.MappingNode {
		return nil
	}
	var items *yamlv3.Node
	isList := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yamlv3.ScalarNode {
			continue
		}
		if v.Kind == yamlv3.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		switch k.Value {
		case "kind":
			isList = v.Kind == yamlv3.ScalarNode && strings.HasSuffix(v.Value, "List")
		case "items":
			items = v
		}
	}
	if !isList || items == nil || items.Kind != yamlv3.SequenceNode {
		return nil
	}
	lines := make([]int, len(items.Content))
	for j, item := range items.Content {
		lines[j] = start + item.Line - 1
	}
	return lines
}

// expandList returns the items of the List document list as documents of their own, each at its line (the List's
// when lines is nil). An item that is no Kubernetes object is malformed; an item that is a List is expanded too.
func expandList(list Document, items []any, lines []int) ([]Document, error) {
	origin := &ListOrigin{Kind: list.Object.GetKind(), Line: list.Line, Items: len(items)}
	out := make([]Document, 0, len(items))
	for i, item := range items {
		line := list.Line
		if lines != nil {
			line = lines[i]
		}
		fail := func(format string, args ...any) ([]Document, error) {
			return nil, &PositionError{File: list.File, Line: line,
				Err: fmt.Errorf("%w: item %d of %s: "+format, append([]any{ErrMalformed, i, origin.Kind}, args...)...)}
		}
		obj, ok := item.(map[string]any)
		if !ok {
			return fail("a %s, want a map with apiVersion and kind", jsonvalue.KindOf(item))
		}
		if err := checkObject(obj); err != nil {
			return fail("%s", err)
		}
		doc := Document{File: list.File, Line: line, StartLine: line, Raw: list.Raw, Object: &unstructured.Unstructured{Object: obj}, List: origin}
		if nested, ok := listItems(obj); ok {
			docs, err := expandList(doc, nested, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, docs...)
			continue
		}
		out = append(out, doc)
	}
	return out, nil
}
