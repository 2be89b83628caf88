package prototype_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/internal/prototype"
)

func TestFactoryMakesEmptyObjectsOfThePrototypesType(t *testing.T) {
	proto := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "leak", Namespace: "ns", Labels: map[string]string{"a": "b"}},
		Data: map[string][]byte{"key": []byte("value")}}
	newObject, err := prototype.Factory[client.Object]("object", proto)
	require.NoError(t, err)
	a, b := newObject(), newObject()
	require.IsType(t, &corev1.Secret{}, a)
	assert.Equal(t, &corev1.Secret{}, a, "a prototype's values must not leak into new objects")
	assert.NotSame(t, a, b)
	assert.NotSame(t, proto, a)
	a.SetName("changed")
	assert.Equal(t, "leak", proto.GetName(), "new objects must not share the prototype")
}

func TestFactoryKeepsTheKindOfAnUnstructuredPrototype(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Kind: "MemCluster"}
	proto := &unstructured.Unstructured{}
	proto.SetGroupVersionKind(gvk)
	proto.SetName("leak")
	newObject, err := prototype.Factory("object", proto)
	require.NoError(t, err)
	got := newObject()
	assert.Equal(t, gvk, got.GroupVersionKind())
	assert.Empty(t, got.GetName())
}

func TestFactoryRefusesWhatIsNotAPointerToAStruct(t *testing.T) {
	var nilSecret *corev1.Secret
	var nilObject client.Object
	tests := []struct {
		name    string
		factory func() error
		wantMsg string
	}{
		{name: "nil interface", factory: func() error { _, err := prototype.Factory("object", nilObject); return err },
			wantMsg: "object is nil"},
		{name: "nil pointer", factory: func() error { _, err := prototype.Factory[client.Object]("object", nilSecret); return err },
			wantMsg: "object is a nil *v1.Secret"},
		{name: "not a pointer", factory: func() error { _, err := prototype.Factory("identity", corev1.Secret{}); return err },
			wantMsg: "identity v1.Secret is not a pointer to a struct"},
		{name: "pointer to a non-struct", factory: func() error { s := "x"; _, err := prototype.Factory("object", &s); return err },
			wantMsg: "object *string is not a pointer to a struct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorContains(t, tt.factory(), tt.wantMsg)
		})
	}
}
