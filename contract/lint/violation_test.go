package lint

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestViolationString(t *testing.T) {
	tests := []struct {
		v    Violation
		want string
	}{
		{Violation{Rule: "crd.status-subresource", Object: "CustomResourceDefinition/memclusters.x", Message: "enable it"},
			"CustomResourceDefinition/memclusters.x: crd.status-subresource: enable it"},
		{Violation{Rule: "infracluster.provisioned", Object: "MemCluster/c", Path: "status.ready", Message: "wrong"},
			"MemCluster/c: infracluster.provisioned: status.ready: wrong"},
		{Violation{Rule: "r", Message: "line one\nline two\r\n  three"}, "r: line one line two three"},
		{Violation{Rule: "r"}, "r"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.v.String())
	}
}

func TestViolationsSortAndHelpers(t *testing.T) {
	vs := Violations{
		{Rule: "b", Object: "Y", Path: "p"},
		{Rule: "a", Object: "Y", Path: "p"},
		{Rule: "z", Object: "X", Path: "q"},
		{Rule: "z", Object: "X", Path: "a"},
	}
	sorted := vs.Sorted()
	assert.Equal(t, Violations{
		{Rule: "z", Object: "X", Path: "a"},
		{Rule: "z", Object: "X", Path: "q"},
		{Rule: "a", Object: "Y", Path: "p"},
		{Rule: "b", Object: "Y", Path: "p"},
	}, sorted)
	assert.Equal(t, "b", vs[0].Rule, "Sorted leaves the receiver alone")
	vs.Sort()
	assert.Equal(t, sorted, vs)

	assert.Equal(t, []string{"a", "b", "z"}, vs.Rules())
	assert.True(t, vs.Has("a"))
	assert.False(t, vs.Has("c"))
	assert.Len(t, vs.Filter(func(v Violation) bool { return v.Object == "X" }), 2)
	assert.Nil(t, vs.Filter(func(Violation) bool { return false }))
	assert.Equal(t, []string{"X: z: a", "X: z: q", "Y: a: p", "Y: b: p"}, vs.Strings())
	assert.Equal(t, "X: z: a\nX: z: q\nY: a: p\nY: b: p", Violations{vs[3], vs[0], vs[2], vs[1]}.String())
}

func TestViolationsErr(t *testing.T) {
	require.NoError(t, Violations(nil).Err())
	require.NoError(t, Violations{}.Err())

	err := Violations{{Rule: "b", Object: "O"}, {Rule: "a", Object: "O"}}.Err()
	require.ErrorIs(t, err, ErrViolations)
	assert.Equal(t, "2 contract violations:\nO: a\nO: b", err.Error())
	var got *ViolationsError
	require.ErrorAs(t, err, &got)
	assert.Equal(t, []string{"a", "b"}, got.Violations.Rules())

	err = Violations{{Rule: "a", Object: "O"}}.Err()
	assert.Equal(t, "1 contract violation:\nO: a", err.Error())
	wrapped := errors.Join(errors.New("other"), err)
	require.ErrorIs(t, wrapped, ErrViolations)
}
