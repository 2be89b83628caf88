package webhooks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
)

// digest is a valid sha256 digest of an image.
var digest = "sha256:" + strings.Repeat("0123456789abcdef", 4)

func TestValidatePodMachineSpecImage(t *testing.T) {
	for _, image := range []string{
		"",
		"kindest/node",
		"kindest/node:v1.36.3",
		"kindest/node@" + digest,
		"kindest/node:v1.36.3@" + digest,
		"busybox",
		"docker.io/kindest/node:v1.36.3",
		"registry.example.com:5000/team/node-image_v2:latest",
		"localhost/node:dev",
		"localhost:5000/node",
		"registry:5000/node",
		"my-registry.local/a.b/c__d/e--f:Tag_1.0-rc.1",
	} {
		t.Run("valid "+image, func(t *testing.T) {
			assert.Empty(t, webhooks.ValidatePodMachineSpec(&v1beta2.PodMachineSpec{Image: image}, field.NewPath("spec")))
		})
	}
	for _, image := range []string{
		"Kindest/node",          // upper case in a repository
		"kindest/Node:v1",       // upper case in a repository
		"kindest/node:",         // empty tag
		"kindest/node:-v1",      // a tag cannot start with '-'
		"kindest/node@sha256:0", // short digest
		"kindest/node@sha512:" + strings.Repeat("0", 128),
		"kindest/node@" + strings.ToUpper(digest),
		"kindest//node",
		"/kindest/node",
		"kindest/node/",
		"-kindest/node",
		"kindest/node_",
		"kindest/node:" + strings.Repeat("t", 129),
		"registry.example.com:port/node",
		"https://registry.example.com/node",
		"kindest/node v1",
		" kindest/node",
		"kindest/node\n",
	} {
		t.Run("invalid "+image, func(t *testing.T) {
			errs := webhooks.ValidatePodMachineSpec(&v1beta2.PodMachineSpec{Image: image}, field.NewPath("spec"))
			require.Len(t, errs, 1)
			assert.Equal(t, field.ErrorTypeInvalid, errs[0].Type)
			assert.Equal(t, "spec.image", errs[0].Field)
			assert.Contains(t, errs[0].Error(), `spec.image: Invalid value: "`)
			assert.Equal(t, image, errs[0].BadValue)
			assert.Contains(t, errs[0].Error(), "must be a container image reference")
		})
	}
}

func TestValidatePodMachineSpecProviderID(t *testing.T) {
	for _, tc := range []struct {
		providerID string
		want       []string
	}{
		{"", nil},
		{"podcloud://ns/pod/0b7d5d6c-5ab2-4f2b-9c1e-7d0c1f0e2a3b", nil},
		{"aws:///us-east-1a/i-1", []string{`spec.providerID: Invalid value: "aws:///us-east-1a/i-1": must be "podcloud://" followed by the Pod's namespace, name and UID, separated by '/'`}},
		{"podcloud://ns/pod", []string{`spec.providerID: Invalid value: "podcloud://ns/pod": must be "podcloud://" followed by the Pod's namespace, name and UID, separated by '/'`}},
		{"podcloud://ns//uid", []string{`spec.providerID: Invalid value: "podcloud://ns//uid": must be "podcloud://" followed by the Pod's namespace, name and UID, separated by '/'`}},
	} {
		t.Run(tc.providerID, func(t *testing.T) {
			spec := v1beta2.PodMachineSpec{ProviderID: tc.providerID}
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidatePodMachineSpec(&spec, field.NewPath("spec"))))
		})
	}
}

// resources returns the resource list of name, quantity pairs.
func resources(nameQuantity ...string) corev1.ResourceList {
	rl := corev1.ResourceList{}
	for i := 0; i+1 < len(nameQuantity); i += 2 {
		rl[corev1.ResourceName(nameQuantity[i])] = resource.MustParse(nameQuantity[i+1])
	}
	return rl
}

func TestValidateResources(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resources corev1.ResourceList
		want      []string
	}{
		{"none", nil, nil},
		{"empty", corev1.ResourceList{}, nil},
		{"cpu and memory", resources("cpu", "2", "memory", "4Gi"), nil},
		{"milli-CPUs", resources("cpu", "500m"), nil},
		{"memory only", resources("memory", "512Mi"), nil},
		{"zero cpu", resources("cpu", "0", "memory", "4Gi"),
			[]string{`spec.resources[cpu]: Invalid value: "0": must be greater than zero`}},
		{"negative memory", resources("memory", "-1Gi"),
			[]string{`spec.resources[memory]: Invalid value: "-1Gi": must be greater than zero`}},
		{"a GPU", resources("cpu", "2", "nvidia.com/gpu", "1"),
			[]string{`spec.resources: Unsupported value: "nvidia.com/gpu": supported values: "cpu", "memory"`}},
		{"ephemeral storage and zero memory, in the order of the names", resources("memory", "0", "ephemeral-storage", "10Gi"), []string{
			`spec.resources: Unsupported value: "ephemeral-storage": supported values: "cpu", "memory"`,
			`spec.resources[memory]: Invalid value: "0": must be greater than zero`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidateResources(field.NewPath("spec", "resources"), tc.resources)))
			spec := v1beta2.PodMachineSpec{Resources: tc.resources}
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidatePodMachineSpec(&spec, field.NewPath("spec"))), "part of the spec's checks")
		})
	}
}

func TestValidatePodMachineSpecUpdate(t *testing.T) {
	base := v1beta2.PodMachineSpec{Image: "kindest/node:v1.36.3", FailureDomain: "zone-a"}
	with := func(f func(*v1beta2.PodMachineSpec)) v1beta2.PodMachineSpec {
		s := base
		f(&s)
		return s
	}
	withID := with(func(s *v1beta2.PodMachineSpec) { s.ProviderID = "podcloud://ns/m-0/uid-1" })
	for _, tc := range []struct {
		name     string
		old, new v1beta2.PodMachineSpec
		want     []string
	}{
		{"no change", base, base, nil},
		{"provider ID set once", base, withID, nil},
		{"provider ID kept", withID, withID, nil},
		{"provider ID changed", withID, with(func(s *v1beta2.PodMachineSpec) { s.ProviderID = "podcloud://ns/m-0/uid-2" }),
			[]string{`spec.providerID: Invalid value: "podcloud://ns/m-0/uid-2": field is immutable once set (was "podcloud://ns/m-0/uid-1")`}},
		{"provider ID removed", withID, base,
			[]string{`spec.providerID: Invalid value: "": field is immutable once set (was "podcloud://ns/m-0/uid-1")`}},
		{"image", base, with(func(s *v1beta2.PodMachineSpec) { s.Image = "kindest/node:v1.35.0" }),
			[]string{`spec.image: Invalid value: "kindest/node:v1.35.0": field is immutable (was "kindest/node:v1.36.3")`}},
		{"image set", v1beta2.PodMachineSpec{}, v1beta2.PodMachineSpec{Image: "kindest/node:v1.36.3"},
			[]string{`spec.image: Invalid value: "kindest/node:v1.36.3": field is immutable (was "")`}},
		{"failure domain", base, with(func(s *v1beta2.PodMachineSpec) { s.FailureDomain = "zone-b" }),
			[]string{`spec.failureDomain: Invalid value: "zone-b": field is immutable (was "zone-a")`}},
		{"resources the same, written otherwise", with(func(s *v1beta2.PodMachineSpec) { s.Resources = resources("cpu", "1", "memory", "1Gi") }),
			with(func(s *v1beta2.PodMachineSpec) { s.Resources = resources("cpu", "1000m", "memory", "1024Mi") }), nil},
		{"resources changed", with(func(s *v1beta2.PodMachineSpec) { s.Resources = resources("cpu", "1", "memory", "1Gi") }),
			with(func(s *v1beta2.PodMachineSpec) { s.Resources = resources("cpu", "2", "memory", "1Gi") }),
			[]string{`spec.resources: Invalid value: "cpu=2,memory=1Gi": field is immutable (was "cpu=1,memory=1Gi")`}},
		{"resources set", base, with(func(s *v1beta2.PodMachineSpec) { s.Resources = resources("memory", "4Gi") }),
			[]string{`spec.resources: Invalid value: "memory=4Gi": field is immutable (was "")`}},
		{"resources removed", with(func(s *v1beta2.PodMachineSpec) { s.Resources = resources("cpu", "500m") }), base,
			[]string{`spec.resources: Invalid value: "": field is immutable (was "cpu=500m")`}},
		{"image and failure domain", base, v1beta2.PodMachineSpec{ProviderID: withID.ProviderID}, []string{
			`spec.failureDomain: Invalid value: "": field is immutable (was "zone-a")`,
			`spec.image: Invalid value: "": field is immutable (was "kindest/node:v1.36.3")`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidatePodMachineSpecUpdate(&tc.old, &tc.new, field.NewPath("spec"))))
		})
	}
}

func TestPodMachineWebhook(t *testing.T) {
	ctx := t.Context()
	wh := webhooks.PodMachine
	m := &v1beta2.PodMachine{ObjectMeta: metav1.ObjectMeta{Name: "m-0"}, Spec: v1beta2.PodMachineSpec{Image: "kindest/node:v1.36.3"}}
	_, err := wh.ValidateCreate(ctx, m)
	require.NoError(t, err)

	bad := m.DeepCopy()
	bad.Spec.Image = "kindest/Node"
	_, err = wh.ValidateCreate(ctx, bad)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), `PodMachine.infrastructure.podcloud.capkit.io "m-0" is invalid: spec.image: Invalid value: "kindest/Node"`)

	provisioned := m.DeepCopy()
	provisioned.Spec.ProviderID = "podcloud://ns/m-0/uid-1"
	_, err = wh.ValidateUpdate(ctx, m, provisioned)
	require.NoError(t, err)

	resized := m.DeepCopy()
	resized.Spec.Resources = resources("cpu", "4")
	_, err = wh.ValidateUpdate(ctx, m, resized)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), `spec.resources: Invalid value: "cpu=4": field is immutable (was "")`)

	garbled := m.DeepCopy()
	garbled.Spec.ProviderID = "podcloud://m-0"
	_, err = wh.ValidateUpdate(ctx, m, garbled)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), `spec.providerID: Invalid value: "podcloud://m-0"`)

	_, err = wh.ValidateDelete(ctx, m)
	require.NoError(t, err)
}
