package webhooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/webhooks"
)

// biosUUID is a VM's BIOS UUID, the ID in a providerID.
const biosUUID = "4207d9e2-5c33-4a2c-9b65-61b4a3e0c9a1"

// machineSpec is a valid VSphereMachine spec, as Cluster API makes it from a template.
func machineSpec() v1beta2.VSphereMachineSpec {
	return v1beta2.VSphereMachineSpec{Template: "ubuntu-2404-kube-v1.36.3", Folder: "vm", ResourcePool: "/DC0/host/DC0_C0/Resources",
		Datastore: "LocalDS_0", Network: "VM Network", NumCPUs: 2, MemoryMiB: 4096, DiskGiB: 20}
}

func TestValidateVSphereMachineName(t *testing.T) {
	path := field.NewPath("metadata", "name")
	assert.Empty(t, webhooks.ValidateVSphereMachineName("c1-md-0-x7k2p-9zq4v", path))
	assert.Empty(t, webhooks.ValidateVSphereMachineName(strings.Repeat("a", services.MaxVMNameLength), path))
	long := strings.Repeat("a", services.MaxVMNameLength+1)
	assert.Equal(t, []string{`metadata.name: Invalid value: "` + long + `": must have at most 80 characters, not 81: it becomes the VM's name, and vSphere allows no more`},
		errorStrings(webhooks.ValidateVSphereMachineName(long, path)))
}

func TestValidateVSphereMachineSpec(t *testing.T) {
	const wantUUID = `must be "vsphere://" followed by the VM's BIOS UUID`
	for _, tc := range []struct {
		name, providerID string
		want             []string
	}{
		{"no providerID", "", nil},
		{"providerID", "vsphere://" + biosUUID, nil},
		{"upper-case UUID", "vsphere://" + strings.ToUpper(biosUUID), nil},
		{"another provider's", "aws:///us-east-1a/i-1", []string{`spec.providerID: Invalid value: "aws:///us-east-1a/i-1": ` + wantUUID}},
		{"not a UUID", "vsphere://vm-42", []string{`spec.providerID: Invalid value: "vsphere://vm-42": ` + wantUUID}},
		{"no prefix", biosUUID, []string{`spec.providerID: Invalid value: "` + biosUUID + `": ` + wantUUID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := machineSpec()
			spec.ProviderID = tc.providerID
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidateVSphereMachineSpec(&spec, field.NewPath("spec"))))
		})
	}
}

func TestValidateVSphereMachineSpecUpdate(t *testing.T) {
	const providerID = "vsphere://" + biosUUID
	for _, tc := range []struct {
		name      string
		old, edit func(*v1beta2.VSphereMachineSpec)
		want      []string
	}{
		{name: "no change"},
		{name: "providerID set once", edit: func(s *v1beta2.VSphereMachineSpec) { s.ProviderID = providerID }},
		{name: "providerID kept", old: func(s *v1beta2.VSphereMachineSpec) { s.ProviderID = providerID }},
		{name: "providerID changed", old: func(s *v1beta2.VSphereMachineSpec) { s.ProviderID = providerID },
			edit: func(s *v1beta2.VSphereMachineSpec) {
				s.ProviderID = "vsphere://" + strings.Repeat("0", 8) + biosUUID[8:]
			},
			want: []string{`spec.providerID: Invalid value: "vsphere://00000000-5c33-4a2c-9b65-61b4a3e0c9a1": field is immutable once set (was "` + providerID + `")`}},
		{name: "providerID cleared", old: func(s *v1beta2.VSphereMachineSpec) { s.ProviderID = providerID },
			edit: func(s *v1beta2.VSphereMachineSpec) { s.ProviderID = "" },
			want: []string{`spec.providerID: Invalid value: "": field is immutable once set (was "` + providerID + `")`}},
		{name: "template", edit: func(s *v1beta2.VSphereMachineSpec) { s.Template = "ubuntu-2404-kube-v1.37.0" },
			want: []string{`spec.template: Invalid value: "ubuntu-2404-kube-v1.37.0": field is immutable (was "ubuntu-2404-kube-v1.36.3")`}},
		{name: "folder", edit: func(s *v1beta2.VSphereMachineSpec) { s.Folder = "/DC0/vm/c1" },
			want: []string{`spec.folder: Invalid value: "/DC0/vm/c1": field is immutable (was "vm")`}},
		{name: "resource pool", edit: func(s *v1beta2.VSphereMachineSpec) { s.ResourcePool = "Resources" },
			want: []string{`spec.resourcePool: Invalid value: "Resources": field is immutable (was "/DC0/host/DC0_C0/Resources")`}},
		{name: "datastore", edit: func(s *v1beta2.VSphereMachineSpec) { s.Datastore = "LocalDS_1" },
			want: []string{`spec.datastore: Invalid value: "LocalDS_1": field is immutable (was "LocalDS_0")`}},
		{name: "network", edit: func(s *v1beta2.VSphereMachineSpec) { s.Network = "DC0_DVPG0" },
			want: []string{`spec.network: Invalid value: "DC0_DVPG0": field is immutable (was "VM Network")`}},
		{name: "CPUs", edit: func(s *v1beta2.VSphereMachineSpec) { s.NumCPUs = 4 },
			want: []string{`spec.numCPUs: Invalid value: 4: field is immutable (was 2)`}},
		{name: "memory", edit: func(s *v1beta2.VSphereMachineSpec) { s.MemoryMiB = 8192 },
			want: []string{`spec.memoryMiB: Invalid value: 8192: field is immutable (was 4096)`}},
		{name: "disk unset", edit: func(s *v1beta2.VSphereMachineSpec) { s.DiskGiB = 0 },
			want: []string{`spec.diskGiB: Invalid value: 0: field is immutable (was 20)`}},
		{name: "providerID set with a resize", edit: func(s *v1beta2.VSphereMachineSpec) { s.ProviderID, s.NumCPUs = providerID, 4 },
			want: []string{`spec.numCPUs: Invalid value: 4: field is immutable (was 2)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldSpec := machineSpec()
			if tc.old != nil {
				tc.old(&oldSpec)
			}
			newSpec := oldSpec
			if tc.edit != nil {
				tc.edit(&newSpec)
			}
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidateVSphereMachineSpecUpdate(&oldSpec, &newSpec, field.NewPath("spec"))))
		})
	}
}

func TestVSphereMachineWebhook(t *testing.T) {
	wh := webhooks.VSphereMachine
	m := &v1beta2.VSphereMachine{ObjectMeta: metav1.ObjectMeta{Name: "c1-cp-0"}, Spec: machineSpec()}
	_, err := wh.ValidateCreate(t.Context(), m)
	require.NoError(t, err)

	long := m.DeepCopy()
	long.Name = strings.Repeat("m", 81)
	long.Spec.ProviderID = "vsphere://vm-42"
	_, err = wh.ValidateCreate(t.Context(), long)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), `VSphereMachine.infrastructure.vspherecloud.capkit.io "`+long.Name+`" is invalid: [metadata.name: Invalid value: "`+
		long.Name+`": must have at most 80 characters, not 81`)
	assert.Contains(t, err.Error(), `spec.providerID: Invalid value: "vsphere://vm-42": must be "vsphere://" followed by the VM's BIOS UUID]`)

	provisioned := m.DeepCopy()
	provisioned.Spec.ProviderID = "vsphere://" + biosUUID
	_, err = wh.ValidateUpdate(t.Context(), m, provisioned)
	require.NoError(t, err, "the controller sets providerID once")
	resized := provisioned.DeepCopy()
	resized.Spec.MemoryMiB = 8192
	_, err = wh.ValidateUpdate(t.Context(), provisioned, resized)
	assert.EqualError(t, err, `VSphereMachine.infrastructure.vspherecloud.capkit.io "c1-cp-0" is invalid: `+
		`spec.memoryMiB: Invalid value: 8192: field is immutable (was 4096)`)

	_, err = wh.ValidateUpdate(t.Context(), long, long)
	require.True(t, apierrors.IsInvalid(err), "an update checks the spec, not the name")
	assert.NotContains(t, err.Error(), "metadata.name")
}

func TestValidateVSphereMachineTemplateSpec(t *testing.T) {
	for _, tc := range []struct {
		name, providerID string
		want             []string
	}{
		{"no providerID", "", nil},
		{"providerID", "vsphere://" + biosUUID,
			[]string{`spec.template.spec.providerID: Invalid value: "vsphere://` + biosUUID + `": must be empty in a template: every VSphereMachine made from it gets its own VM`}},
		{"unparsable providerID is reported once", "x",
			[]string{`spec.template.spec.providerID: Invalid value: "x": must be empty in a template: every VSphereMachine made from it gets its own VM`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := machineSpec()
			spec.ProviderID = tc.providerID
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidateVSphereMachineTemplateSpec(&spec, field.NewPath("spec", "template", "spec"))))
		})
	}
}

// requestContext returns a context holding an update admission request, a dry-run or not.
func requestContext(dryRun bool) context.Context {
	return cradmission.NewContextWithRequest(context.Background(), cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Update, DryRun: ptr.To(dryRun),
	}})
}

func TestVSphereMachineTemplateWebhook(t *testing.T) {
	wh := webhooks.VSphereMachineTemplate
	tmpl := &v1beta2.VSphereMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "workers"}}
	tmpl.Spec.Template.Spec = machineSpec()
	_, err := wh.ValidateCreate(t.Context(), tmpl)
	require.NoError(t, err)

	withID := tmpl.DeepCopy()
	withID.Spec.Template.Spec.ProviderID = "vsphere://" + biosUUID
	_, err = wh.ValidateCreate(t.Context(), withID)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), `spec.template.spec.providerID: Invalid value: "vsphere://`+biosUUID+`": must be empty in a template`)

	newer := tmpl.DeepCopy()
	newer.Spec.Template.Spec.Template = "ubuntu-2404-kube-v1.37.0"
	annotated := newer.DeepCopy()
	annotated.Annotations = map[string]string{admission.TopologyDryRunAnnotation: ""}
	relabelled := tmpl.DeepCopy()
	relabelled.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"}
	badAnnotated := annotated.DeepCopy()
	badAnnotated.Spec.Template.Spec.ProviderID = "vsphere://" + biosUUID
	onlyObjectMeta := tmpl.DeepCopy()
	onlyObjectMeta.Labels = map[string]string{"team": "a"}

	const templateImmutable = `VSphereMachineTemplate.infrastructure.vspherecloud.capkit.io "workers" is invalid: ` +
		`spec.template.spec.template: Forbidden: field is immutable: create a new template and point its users at it`
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		newT    *v1beta2.VSphereMachineTemplate
		wantErr string
	}{
		{"no change", t.Context(), tmpl, ""},
		{"object metadata may change", t.Context(), onlyObjectMeta, ""},
		{"spec change", t.Context(), newer, templateImmutable},
		{"template metadata change", t.Context(), relabelled, "spec.template.metadata: Forbidden: field is immutable"},
		{"dry-run without the annotation", requestContext(true), newer, templateImmutable},
		{"annotated, not a dry-run", requestContext(false), annotated, templateImmutable},
		{"topology dry-run", requestContext(true), annotated, ""},
		{"topology dry-run still validates", requestContext(true), badAnnotated, `spec.template.spec.providerID: Invalid value: "vsphere://` + biosUUID + `"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wh.ValidateUpdate(tc.ctx, tmpl, tc.newT)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}
