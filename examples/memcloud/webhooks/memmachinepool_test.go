package webhooks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
)

func TestMemMachinePoolWebhook(t *testing.T) {
	ctx := t.Context()
	p := &v1beta2.MemMachinePool{ObjectMeta: metav1.ObjectMeta{Name: "pool"}}
	require.NoError(t, webhooks.MemMachinePool.Default(ctx, p))
	assert.Equal(t, v1beta2.MemMachinePoolSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorMedium}, p.Spec)
	_, err := webhooks.MemMachinePool.ValidateCreate(ctx, p)
	require.NoError(t, err)

	tests := []struct {
		name   string
		mutate func(*v1beta2.MemMachinePool)
		want   string // part of the error, "" for none
	}{
		{"instances recorded", func(p *v1beta2.MemMachinePool) { p.Spec.ProviderIDList = []string{"memcloud://i-1f2e3d4c"} }, ""},
		{"image changed", func(p *v1beta2.MemMachinePool) { p.Spec.Image = "debian-13" }, "spec.image: Forbidden"},
		{"flavor changed", func(p *v1beta2.MemMachinePool) { p.Spec.Flavor = v1beta2.FlavorLarge }, "spec.flavor: Forbidden"},
		{"bad provider ID", func(p *v1beta2.MemMachinePool) { p.Spec.ProviderIDList = []string{"aws://i-1"} },
			`spec.providerIDList[0]: Invalid value: "aws://i-1"`},
		{"unknown flavor", func(p *v1beta2.MemMachinePool) { p.Spec.Flavor = "huge" }, `spec.flavor: Unsupported value: "huge"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := p.DeepCopy()
			tt.mutate(next)
			_, err := webhooks.MemMachinePool.ValidateUpdate(ctx, p, next)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err = webhooks.MemMachinePool.ValidateCreate(ctx, &v1beta2.MemMachinePool{ObjectMeta: metav1.ObjectMeta{Name: "bare"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.image: Required value")
}
