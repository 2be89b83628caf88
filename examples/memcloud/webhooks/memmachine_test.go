package webhooks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
)

func TestDefaultMemMachineSpec(t *testing.T) {
	spec := v1beta2.MemMachineSpec{}
	webhooks.DefaultMemMachineSpec(&spec)
	assert.Equal(t, v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorMedium}, spec)

	set := v1beta2.MemMachineSpec{Image: "debian-13", Flavor: v1beta2.FlavorLarge}
	webhooks.DefaultMemMachineSpec(&set)
	assert.Equal(t, v1beta2.MemMachineSpec{Image: "debian-13", Flavor: v1beta2.FlavorLarge}, set)

	m := &v1beta2.MemMachine{}
	require.NoError(t, webhooks.MemMachine.Default(creating(), m))
	assert.Equal(t, v1beta2.FlavorMedium, m.Spec.Flavor)
}

func TestValidateMemMachineSpec(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec v1beta2.MemMachineSpec
		want []string
	}{
		{"valid", v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: "small"}, nil},
		{"valid with provider ID", v1beta2.MemMachineSpec{Image: "i", Flavor: "large", ProviderID: "memcloud://i-1f2e3d4c"}, nil},
		{"no image", v1beta2.MemMachineSpec{Flavor: "small"},
			[]string{"spec.image: FieldValueRequired: every machine needs a boot image"}},
		{"unknown flavor", v1beta2.MemMachineSpec{Image: "i", Flavor: "huge"},
			[]string{`spec.flavor: FieldValueNotSupported: supported values: "small", "medium", "large"`}},
		{"foreign provider ID", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", ProviderID: "aws:///i-1"},
			[]string{`spec.providerID: FieldValueInvalid: must be "memcloud://" followed by the instance ID`}},
		{"tags", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", Tags: map[string]string{
			"team": "blue", "example.com/cost-center": "42", "a_b.c-d": "", "k": strings.Repeat("v", 255)}}, nil},
		{"reserved tag keys", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", Tags: map[string]string{
			"memcloud.capkit.io/cluster": "ns/other", "capkit.io/ownership-key": "x", "team": "blue"}}, []string{
			`spec.tags[capkit.io/ownership-key]: FieldValueForbidden: tag key "capkit.io/ownership-key" is reserved: keys under capkit.io are memcloud's and capkit's own tags`,
			`spec.tags[memcloud.capkit.io/cluster]: FieldValueForbidden: tag key "memcloud.capkit.io/cluster" is reserved: keys under capkit.io are memcloud's and capkit's own tags`,
		}},
		{"bad tag keys", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", Tags: map[string]string{
			"-team": "x", "Example.com/x": "y", "example.com/" + strings.Repeat("k", 52): "z"}}, []string{
			`spec.tags[-team]: FieldValueInvalid: tag key must be a qualified name: an optional lowercase DNS subdomain and "/", then alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric`,
			`spec.tags[Example.com/x]: FieldValueInvalid: tag key must be a qualified name: an optional lowercase DNS subdomain and "/", then alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric`,
			`spec.tags[example.com/kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk]: FieldValueTooLong: may not be more than 63 bytes`,
		}},
		{"a long tag value", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", Tags: map[string]string{"k": strings.Repeat("v", 256)}},
			[]string{`spec.tags[k]: FieldValueTooLong: may not be more than 255 bytes`}},
		{"too many tags", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", Tags: func() map[string]string {
			tags := map[string]string{}
			for i := range 17 {
				tags[fmt.Sprint("k", i)] = ""
			}
			return tags
		}()}, []string{`spec.tags: FieldValueTooMany: must have at most 16 items`}},
		{"pools", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", AddressesFromPools: []v1beta2.IPPoolRef{
			{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "workers"},
			{APIGroup: "ipam.cluster.x-k8s.io", Kind: "GlobalInClusterIPPool", Name: "shared.v4"},
		}}, nil},
		{"bad pools", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", AddressesFromPools: []v1beta2.IPPoolRef{
			{Kind: "InClusterIPPool", Name: "workers"},
			{APIGroup: "IPAM", Kind: "1Pool", Name: "Workers"},
		}}, []string{
			"spec.addressesFromPools[0].apiGroup: FieldValueRequired: the API group of the pool",
			`spec.addressesFromPools[1].apiGroup: FieldValueInvalid: must be a DNS subdomain: at most 253 lowercase alphanumerics, '-' and '.', starting and ending with an alphanumeric`,
			"spec.addressesFromPools[1].kind: FieldValueInvalid: must be at most 63 alphanumerics or '-', start with a letter and end with an alphanumeric",
			`spec.addressesFromPools[1].name: FieldValueInvalid: must be a DNS subdomain: at most 253 lowercase alphanumerics, '-' and '.', starting and ending with an alphanumeric`,
		}},
		{"a pool twice", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", AddressesFromPools: []v1beta2.IPPoolRef{
			{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "workers"},
			{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "workers"},
		}}, []string{"spec.addressesFromPools[1]: FieldValueDuplicate: "}},
		{"too many pools", v1beta2.MemMachineSpec{Image: "i", Flavor: "small", AddressesFromPools: func() []v1beta2.IPPoolRef {
			var pools []v1beta2.IPPoolRef
			for i := range 5 {
				pools = append(pools, v1beta2.IPPoolRef{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: fmt.Sprint("p", i)})
			}
			return pools
		}()}, []string{`spec.addressesFromPools: FieldValueTooMany: must have at most 4 items`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, nilIfEmpty(errorStrings(webhooks.ValidateMemMachineSpec(&tc.spec, field.NewPath("spec")))))
		})
	}
}

func TestValidateMemMachineSpecUpdate(t *testing.T) {
	base := v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: "medium"}
	withID := base
	withID.ProviderID = "memcloud://i-1"
	withFD := base
	withFD.FailureDomain = "az-1"
	for _, tc := range []struct {
		name     string
		old, new v1beta2.MemMachineSpec
		want     []string
	}{
		{"no change", base, base, nil},
		{"provider ID set once", base, withID, nil},
		{"failure domain set once", base, withFD, nil},
		{"provider ID changed", withID, func() v1beta2.MemMachineSpec { s := withID; s.ProviderID = "memcloud://i-2"; return s }(),
			[]string{"spec.providerID: FieldValueForbidden: field is immutable once set"}},
		{"provider ID removed", withID, base,
			[]string{"spec.providerID: FieldValueForbidden: field is immutable once set"}},
		{"failure domain changed", withFD, func() v1beta2.MemMachineSpec { s := withFD; s.FailureDomain = "az-2"; return s }(),
			[]string{"spec.failureDomain: FieldValueForbidden: field is immutable once set"}},
		{"flavor and tags change in place", base, func() v1beta2.MemMachineSpec {
			s := base
			s.Flavor, s.Tags = "large", map[string]string{"team": "blue"}
			return s
		}(), nil},
		{"image", base, v1beta2.MemMachineSpec{Image: "debian-13", Flavor: "large"}, []string{
			"spec.image: FieldValueForbidden: field is immutable",
		}},
		{"pools are immutable", base, func() v1beta2.MemMachineSpec {
			s := base
			s.AddressesFromPools = []v1beta2.IPPoolRef{{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "workers"}}
			return s
		}(), []string{"spec.addressesFromPools: FieldValueForbidden: field is immutable"}},
		{"everything", withFD, v1beta2.MemMachineSpec{Image: "debian-13", Flavor: "large", FailureDomain: "az-2", Tags: map[string]string{"a": "b"}}, []string{
			"spec.failureDomain: FieldValueForbidden: field is immutable once set",
			"spec.image: FieldValueForbidden: field is immutable",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := webhooks.ValidateMemMachineSpecUpdate(&tc.old, &tc.new, field.NewPath("spec"))
			assert.Equal(t, tc.want, nilIfEmpty(errorStrings(got)))
		})
	}
}

func TestMemMachineWebhookErrors(t *testing.T) {
	ctx := t.Context()
	wh := webhooks.MemMachine
	m := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Name: "m-0"}, Spec: v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: "medium"}}
	_, err := wh.ValidateCreate(ctx, m)
	require.NoError(t, err)

	changed := m.DeepCopy()
	changed.Spec.Image = "debian-13"
	_, err = wh.ValidateUpdate(ctx, m, changed)
	require.True(t, apierrors.IsInvalid(err))
	assert.Contains(t, err.Error(), `MemMachine.infrastructure.memcloud.capkit.io "m-0" is invalid: spec.image: Forbidden: field is immutable`)

	bad := m.DeepCopy()
	bad.Spec.Flavor = "huge"
	_, err = wh.ValidateCreate(ctx, bad)
	require.True(t, apierrors.IsInvalid(err))
	assert.Contains(t, err.Error(), `spec.flavor: Unsupported value: "huge"`)

	_, err = wh.ValidateDelete(ctx, bad)
	require.NoError(t, err)
}
