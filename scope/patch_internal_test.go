package scope

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

func TestMergeDiff(t *testing.T) {
	tests := []struct {
		name          string
		before, after map[string]any
		want          map[string]any
	}{
		{"equal", map[string]any{"a": int64(1)}, map[string]any{"a": float64(1)}, map[string]any{}},
		{"added", map[string]any{}, map[string]any{"a": "x"}, map[string]any{"a": "x"}},
		{"removed", map[string]any{"a": "x"}, map[string]any{}, map[string]any{"a": nil}},
		{"nested", map[string]any{"s": map[string]any{"a": "x", "b": "y"}}, map[string]any{"s": map[string]any{"a": "x", "b": "z"}},
			map[string]any{"s": map[string]any{"b": "z"}}},
		{"list replaced whole", map[string]any{"l": []any{"a"}}, map[string]any{"l": []any{"a", "b"}}, map[string]any{"l": []any{"a", "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, mergeDiff(tt.before, tt.after)) })
	}
}

func TestMergeFinalizers(t *testing.T) {
	assert.Equal(t, []string{"other", "mine"}, mergeFinalizers(nil, []string{"mine"}, []string{"other"}), "add keeps theirs")
	assert.Equal(t, []string{"other"}, mergeFinalizers([]string{"mine", "other"}, []string{"other"}, []string{"mine", "other"}), "remove keeps theirs")
	assert.Equal(t, []string{"mine"}, mergeFinalizers(nil, []string{"mine"}, []string{"mine"}), "no duplicate")
}

func TestMergeConditions(t *testing.T) {
	c := func(typ string, st metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: st, Reason: "R"}
	}
	snap := []metav1.Condition{c("A", "True"), c("Gone", "True")}
	cur := []metav1.Condition{c("A", "True"), c("Mine", "False")}
	fresh := []metav1.Condition{c("A", "False"), c("Gone", "True"), c("Theirs", "True")}
	got := mergeConditions(snap, cur, fresh)
	assert.Equal(t, []metav1.Condition{c("A", "False"), c("Mine", "False"), c("Theirs", "True")}, got,
		"unchanged A keeps theirs, Mine is added, Gone is deleted, Theirs is kept")
}

type embedded struct {
	Status struct {
		Ready bool `json:"ready"`
	} `json:"status"`
}

type withInline struct {
	embedded `json:",inline"`
	Spec     struct {
		Extra map[string]any `json:"extra"`
		Ptr   *struct {
			Name string `json:"name,omitempty"`
		} `json:"ptr,omitempty"`
		Ignored string `json:"-"`
		NoTag   string
	} `json:"spec"`
}

func TestTypeHasPath(t *testing.T) {
	tp := reflect.TypeOf(&withInline{})
	tests := []struct {
		path contract.Path
		want bool
	}{
		{contract.Path{"status", "ready"}, true},
		{contract.Path{"spec", "extra", "anything", "below"}, true},
		{contract.Path{"spec", "ptr", "name"}, true},
		{contract.Path{"spec", "NoTag"}, true},
		{contract.Path{"spec", "Ignored"}, false},
		{contract.Path{"spec", "ptr", "name", "deeper"}, false},
		{contract.Path{"status", "initialization", "provisioned"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.path.String(), func(t *testing.T) { assert.Equal(t, tt.want, typeHasPath(tp, tt.path)) })
	}
}
