package webhooks_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/admission"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
)

func TestMemClusterTemplateWebhook(t *testing.T) {
	ctx := t.Context()
	wh := webhooks.MemClusterTemplate
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
	assert.Contains(t, err.Error(), "spec.template.spec.failureDomains: Forbidden: field is immutable: create a new template")

	_, err = wh.ValidateDelete(ctx, tmpl)
	require.NoError(t, err)
}

// creating is the context of an admission request that creates an object, as the API server sends it to the
// defaulting webhooks (which keep the stored status: none on a create).
func creating() context.Context {
	return cradmission.NewContextWithRequest(context.Background(), cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Create}})
}

func TestMemMachineTemplateWebhook(t *testing.T) {
	ctx := t.Context()
	wh := webhooks.MemMachineTemplate
	tmpl := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "workers"}}
	require.NoError(t, wh.Default(creating(), tmpl))
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
	assert.Contains(t, err.Error(), `MemMachineTemplate.infrastructure.memcloud.capkit.io "workers" is invalid: spec.template.spec.flavor: Forbidden: field is immutable`)

	tagged := tmpl.DeepCopy()
	tagged.Spec.Template.Spec.Tags = map[string]string{"team": "blue"}
	_, err = wh.ValidateUpdate(ctx, tmpl, tagged)
	require.True(t, apierrors.IsInvalid(err), "fields changed in place on machines are immutable in their template all the same")
	assert.Contains(t, err.Error(), `spec.template.spec.tags: Forbidden: field is immutable: create a new template`)

	reserved := tmpl.DeepCopy()
	reserved.Spec.Template.Spec.Tags = map[string]string{"memcloud.capkit.io/cluster": "ns/other"}
	_, err = wh.ValidateCreate(ctx, reserved)
	require.True(t, apierrors.IsInvalid(err))
	assert.Contains(t, err.Error(), `spec.template.spec.tags[memcloud.capkit.io/cluster]: Forbidden: tag key "memcloud.capkit.io/cluster" is reserved`)

	_, err = wh.ValidateDelete(ctx, tmpl)
	require.NoError(t, err)
}

// TestTemplatesPassTopologyDryRuns: Cluster API's topology controller dry-runs server-side applies of changed
// templates during ClusterClass rollouts; the immutability check lets them through (nothing is stored).
func TestTemplatesPassTopologyDryRuns(t *testing.T) {
	ctx := cradmission.NewContextWithRequest(t.Context(), cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{DryRun: ptr.To(true)}})
	tmpl := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "workers"}}
	tmpl.Spec.Template.Spec = v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorSmall}
	changed := tmpl.DeepCopy()
	changed.Spec.Template.Spec.Flavor = v1beta2.FlavorLarge
	changed.Annotations = map[string]string{admission.TopologyDryRunAnnotation: ""}
	_, err := webhooks.MemMachineTemplate.ValidateUpdate(ctx, tmpl, changed)
	require.NoError(t, err, "the topology controller's dry-run passes")

	delete(changed.Annotations, admission.TopologyDryRunAnnotation)
	_, err = webhooks.MemMachineTemplate.ValidateUpdate(ctx, tmpl, changed)
	require.Error(t, err, "another dry-run does not")
}
