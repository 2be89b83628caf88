package contract_test

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
)

// TestMoveNames pins the names to those of clusterctl (cmd/clusterctl/api/v1alpha3 of Cluster API v1.14).
func TestMoveNames(t *testing.T) {
	assert.Equal(t, "clusterctl.cluster.x-k8s.io", contract.ClusterctlLabel)
	assert.Equal(t, "clusterctl.cluster.x-k8s.io/move", contract.MoveLabel)
	assert.Equal(t, "clusterctl.cluster.x-k8s.io/move-hierarchy", contract.MoveHierarchyLabel)
	assert.Equal(t, "clusterctl.cluster.x-k8s.io/block-move", contract.BlockMoveAnnotation)
}

func TestMarkForMove(t *testing.T) {
	tests := []struct {
		name        string
		mark        func(metav1.Object) bool
		labels      map[string]string
		wantLabels  map[string]string
		wantChanged bool
	}{
		{"move, no labels", contract.MarkForMove, nil,
			map[string]string{contract.MoveLabel: ""}, true},
		{"move keeps other labels", contract.MarkForMove, map[string]string{"app": "x"},
			map[string]string{"app": "x", contract.MoveLabel: ""}, true},
		{"move already there, value kept", contract.MarkForMove, map[string]string{contract.MoveLabel: "true"},
			map[string]string{contract.MoveLabel: "true"}, false},
		{"hierarchy, no labels", contract.MarkMoveHierarchy, nil,
			map[string]string{contract.MoveHierarchyLabel: ""}, true},
		{"hierarchy keeps the move label", contract.MarkMoveHierarchy, map[string]string{contract.MoveLabel: ""},
			map[string]string{contract.MoveLabel: "", contract.MoveHierarchyLabel: ""}, true},
		{"hierarchy already there", contract.MarkMoveHierarchy, map[string]string{contract.MoveHierarchyLabel: ""},
			map[string]string{contract.MoveHierarchyLabel: ""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typed := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Labels: maps.Clone(tt.labels)}}
			assert.Equal(t, tt.wantChanged, tt.mark(typed))
			assert.Equal(t, tt.wantLabels, typed.Labels)
			assert.True(t, contract.HasMoveLabel(typed))

			u := &unstructured.Unstructured{Object: map[string]any{}}
			u.SetLabels(maps.Clone(tt.labels))
			assert.Equal(t, tt.wantChanged, tt.mark(u), "unstructured objects too")
			assert.Equal(t, tt.wantLabels, u.GetLabels())

			assert.False(t, tt.mark(u), "a second call changes nothing")
		})
	}
	assert.False(t, contract.MarkForMove(nil))
	assert.False(t, contract.MarkMoveHierarchy(nil))
}

func TestHasMoveLabel(t *testing.T) {
	tests := map[string]struct {
		labels map[string]string
		want   bool
	}{
		"none":                 {nil, false},
		"other labels":         {map[string]string{"clusterctl.cluster.x-k8s.io": "", "move": ""}, false},
		"move":                 {map[string]string{contract.MoveLabel: ""}, true},
		"move-hierarchy":       {map[string]string{contract.MoveHierarchyLabel: "false"}, true}, // clusterctl reads the key only
		"prefix is not enough": {map[string]string{contract.MoveLabel + "-later": ""}, false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tt.want, contract.HasMoveLabel(&metav1.ObjectMeta{Labels: tt.labels}))
		})
	}
	assert.False(t, contract.HasMoveLabel(nil))
}

func TestBlockMove(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAnnotations(map[string]string{"keep": "me"})
	assert.True(t, contract.BlockMove(u))
	assert.Equal(t, map[string]string{"keep": "me", contract.BlockMoveAnnotation: ""}, u.GetAnnotations())
	assert.False(t, contract.BlockMove(u), "already blocked")

	assert.True(t, contract.UnblockMove(u))
	assert.Equal(t, map[string]string{"keep": "me"}, u.GetAnnotations())
	assert.False(t, contract.UnblockMove(u), "not blocked")

	typed := &corev1.ConfigMap{}
	assert.True(t, contract.BlockMove(typed))
	assert.True(t, contract.UnblockMove(typed))
	assert.Nil(t, typed.Annotations, "no empty map is left behind")

	assert.False(t, contract.BlockMove(nil))
	assert.False(t, contract.UnblockMove(nil))
}
