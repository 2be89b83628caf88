package webhooks_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
)

func TestMemClusterTemplateWebhook(t *testing.T) {
	ctx := context.Background()
	wh := webhooks.MemClusterTemplate{}
	tmpl := &v1beta2.MemClusterTemplate{ObjectMeta: metav1.ObjectMeta{Name: "quick-start"}}
	require.NoError(t, wh.Default(ctx, tmpl))
	assert.Equal(t, "10.0.0.0/16", tmpl.Spec.Template.Spec.Network.CIDR)
	assert.Len(t, tmpl.Spec.Template.Spec.Network.Subnets, 2)
	assert.Equal(t, int32(6443), tmpl.Spec.Template.Spec.LoadBalancer.Port)

	_, err := wh.ValidateCreate(ctx, tmpl)
	require.NoError(t, err)

	bad := tmpl.DeepCopy()
	bad.Spec.Template.Spec.Network.Subnets[0].CIDR = "192.168.0.0/24"
	_, err = wh.ValidateCreate(ctx, bad)
	require.True(t, apierrors.IsInvalid(err))
	assert.Contains(t, err.Error(), `spec.template.spec.network.subnets[0].cidr: Invalid value: "192.168.0.0/24": must be inside the network cidr "10.0.0.0/16"`)

	relabelled := tmpl.DeepCopy()
	relabelled.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"}
	_, err = wh.ValidateUpdate(ctx, tmpl, relabelled)
	require.NoError(t, err, "metadata of the template may change")

	changed := tmpl.DeepCopy()
	changed.Spec.Template.Spec.FailureDomains = []string{"az-1"}
	_, err = wh.ValidateUpdate(ctx, tmpl, changed)
	require.True(t, apierrors.IsInvalid(err))
	assert.Contains(t, err.Error(), "spec.template.spec: Forbidden: field is immutable: create a new template")

	_, err = wh.ValidateDelete(ctx, tmpl)
	require.NoError(t, err)
}

func TestMemMachineTemplateWebhook(t *testing.T) {
	ctx := context.Background()
	wh := webhooks.MemMachineTemplate{}
	tmpl := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "workers"}}
	require.NoError(t, wh.Default(ctx, tmpl))
	assert.Equal(t, v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: "medium"}, tmpl.Spec.Template.Spec)

	_, err := wh.ValidateCreate(ctx, tmpl)
	require.NoError(t, err)

	withID := tmpl.DeepCopy()
	withID.Spec.Template.Spec.ProviderID = "memcloud://i-1"
	_, err = wh.ValidateCreate(ctx, withID)
	require.True(t, apierrors.IsInvalid(err))
	assert.Contains(t, err.Error(), "spec.template.spec.providerID: Forbidden: must not be set in a template")

	same := tmpl.DeepCopy()
	same.Spec.Template.Spec.FailureDomain = ""
	_, err = wh.ValidateUpdate(ctx, tmpl, same)
	require.NoError(t, err)

	bigger := tmpl.DeepCopy()
	bigger.Spec.Template.Spec.Flavor = v1beta2.FlavorLarge
	_, err = wh.ValidateUpdate(ctx, tmpl, bigger)
	require.True(t, apierrors.IsInvalid(err))
	assert.Contains(t, err.Error(), `MemMachineTemplate.infrastructure.memcloud.capkit.io "workers" is invalid: spec.template.spec: Forbidden: field is immutable`)

	_, err = wh.ValidateDelete(ctx, tmpl)
	require.NoError(t, err)
}
