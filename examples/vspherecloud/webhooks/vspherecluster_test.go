package webhooks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/webhooks"
)

// errorStrings returns the messages of errs, nil for none.
func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// clusterSpec is a valid VSphereCluster spec.
func clusterSpec() v1beta2.VSphereClusterSpec {
	return v1beta2.VSphereClusterSpec{Server: "vcenter.example.com", Datacenter: "DC0",
		CredentialsSecretRef: v1beta2.SecretReference{Name: "vcenter"}}
}

func TestValidateServer(t *testing.T) {
	for _, server := range []string{
		"vcenter.example.com",
		"vcenter.example.com:8443",
		"127.0.0.1:41234",
		"[fd00::1]:443",
		"https://vcenter.example.com",
		"https://vcenter.example.com/sdk",
		"https://vcenter.example.com:8443/sdk",
	} {
		t.Run("valid "+server, func(t *testing.T) {
			assert.Empty(t, webhooks.ValidateServer(field.NewPath("spec", "server"), server))
		})
	}
	const notURL = `must be a host name, host:port or https URL of the vCenter, such as "vcenter.example.com" or "https://vcenter.example.com/sdk"`
	for _, tc := range []struct{ server, want string }{
		{"", `spec.server: Invalid value: "": ` + notURL},
		{"vcenter.example.com:port", `spec.server: Invalid value: "vcenter.example.com:port": ` + notURL},
		{"vcenter example.com", `spec.server: Invalid value: "vcenter example.com": ` + notURL},
		{"https://", `spec.server: Invalid value: "https://": ` + notURL},
		{"https:///sdk", `spec.server: Invalid value: "https:///sdk": ` + notURL},
		{"http://vcenter.example.com/sdk", `spec.server: Invalid value: "http://vcenter.example.com/sdk": must be reached over https, not http`},
		{"ftp://vcenter.example.com", `spec.server: Invalid value: "ftp://vcenter.example.com": must be reached over https, not ftp`},
		{"admin:secret@vcenter.example.com", `spec.server: Forbidden: must not hold a user name or password: put them in the Secret of spec.credentialsSecretRef`},
		{"https://admin@vcenter.example.com/sdk", `spec.server: Forbidden: must not hold a user name or password: put them in the Secret of spec.credentialsSecretRef`},
	} {
		t.Run("invalid "+tc.server, func(t *testing.T) {
			assert.Equal(t, []string{tc.want}, errorStrings(webhooks.ValidateServer(field.NewPath("spec", "server"), tc.server)))
		})
	}
}

func TestValidateVSphereClusterSpec(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*v1beta2.VSphereClusterSpec)
		want []string
	}{
		{"valid", func(*v1beta2.VSphereClusterSpec) {}, nil},
		{"endpoint", func(s *v1beta2.VSphereClusterSpec) {
			s.ControlPlaneEndpoint = contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}
		}, nil},
		{"endpoint without port", func(s *v1beta2.VSphereClusterSpec) { s.ControlPlaneEndpoint.Host = "10.0.0.2" },
			[]string{`spec.controlPlaneEndpoint.port: Required value: must be set when host is set (host "10.0.0.2")`}},
		{"endpoint without host", func(s *v1beta2.VSphereClusterSpec) { s.ControlPlaneEndpoint.Port = 6443 },
			[]string{`spec.controlPlaneEndpoint.host: Required value: must be set when port is set (port 6443)`}},
		{"bad server and endpoint", func(s *v1beta2.VSphereClusterSpec) { s.Server, s.ControlPlaneEndpoint.Port = "http://vc", 6443 },
			[]string{`spec.server: Invalid value: "http://vc": must be reached over https, not http`,
				`spec.controlPlaneEndpoint.host: Required value: must be set when port is set (port 6443)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := clusterSpec()
			tc.edit(&spec)
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidateVSphereClusterSpec(&spec, field.NewPath("spec"))))
		})
	}
}

func TestValidateVSphereClusterSpecUpdate(t *testing.T) {
	endpoint := contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}
	for _, tc := range []struct {
		name      string
		edit, old func(*v1beta2.VSphereClusterSpec)
		want      []string
	}{
		{name: "no change"},
		{name: "thumbprint may change", edit: func(s *v1beta2.VSphereClusterSpec) { s.Thumbprint = "AA:BB" }},
		{name: "credentials may change", edit: func(s *v1beta2.VSphereClusterSpec) { s.CredentialsSecretRef.Name = "vcenter-2" }},
		{name: "endpoint set once", edit: func(s *v1beta2.VSphereClusterSpec) { s.ControlPlaneEndpoint = endpoint }},
		{name: "endpoint unchanged", old: func(s *v1beta2.VSphereClusterSpec) { s.ControlPlaneEndpoint = endpoint },
			edit: func(s *v1beta2.VSphereClusterSpec) { s.ControlPlaneEndpoint = endpoint }},
		{name: "endpoint changed", old: func(s *v1beta2.VSphereClusterSpec) { s.ControlPlaneEndpoint = endpoint },
			edit: func(s *v1beta2.VSphereClusterSpec) {
				s.ControlPlaneEndpoint = contract.APIEndpoint{Host: "10.0.0.3", Port: 6443}
			},
			want: []string{`spec.controlPlaneEndpoint: Invalid value: "10.0.0.3:6443": field is immutable once set (was "10.0.0.2:6443")`}},
		{name: "endpoint cleared", old: func(s *v1beta2.VSphereClusterSpec) { s.ControlPlaneEndpoint = endpoint },
			edit: func(s *v1beta2.VSphereClusterSpec) { s.ControlPlaneEndpoint = contract.APIEndpoint{} },
			want: []string{`spec.controlPlaneEndpoint: Invalid value: "": field is immutable once set (was "10.0.0.2:6443")`}},
		{name: "server", edit: func(s *v1beta2.VSphereClusterSpec) { s.Server = "vcenter-2.example.com" },
			want: []string{`spec.server: Invalid value: "vcenter-2.example.com": field is immutable (was "vcenter.example.com")`}},
		{name: "server with credentials is not echoed", edit: func(s *v1beta2.VSphereClusterSpec) { s.Server = "admin:secret@vcenter.example.com" },
			want: []string{`spec.server: Forbidden: field is immutable`}},
		{name: "datacenter", edit: func(s *v1beta2.VSphereClusterSpec) { s.Datacenter = "DC1" },
			want: []string{`spec.datacenter: Invalid value: "DC1": field is immutable (was "DC0")`}},
		{name: "all three", old: func(s *v1beta2.VSphereClusterSpec) { s.ControlPlaneEndpoint = endpoint },
			edit: func(s *v1beta2.VSphereClusterSpec) {
				s.Server, s.Datacenter, s.ControlPlaneEndpoint.Port = "vc2", "/DC1", 443
			},
			want: []string{`spec.server: Invalid value: "vc2": field is immutable (was "vcenter.example.com")`,
				`spec.datacenter: Invalid value: "/DC1": field is immutable (was "DC0")`,
				`spec.controlPlaneEndpoint: Invalid value: "10.0.0.2:443": field is immutable once set (was "10.0.0.2:6443")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldSpec := clusterSpec()
			if tc.old != nil {
				tc.old(&oldSpec)
			}
			newSpec := oldSpec
			if tc.edit != nil {
				tc.edit(&newSpec)
			}
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidateVSphereClusterSpecUpdate(&oldSpec, &newSpec, field.NewPath("spec"))))
		})
	}
}

func TestVSphereClusterWebhook(t *testing.T) {
	wh := webhooks.VSphereCluster
	vc := &v1beta2.VSphereCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}, Spec: clusterSpec()}
	_, err := wh.ValidateCreate(t.Context(), vc)
	require.NoError(t, err)

	bad := vc.DeepCopy()
	bad.Spec.Server = "http://vcenter.example.com"
	_, err = wh.ValidateCreate(t.Context(), bad)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.EqualError(t, err, `VSphereCluster.infrastructure.vspherecloud.capkit.io "c1" is invalid: `+
		`spec.server: Invalid value: "http://vcenter.example.com": must be reached over https, not http`)

	moved := vc.DeepCopy()
	moved.Spec.Datacenter = "DC1"
	_, err = wh.ValidateUpdate(t.Context(), vc, moved)
	assert.EqualError(t, err, `VSphereCluster.infrastructure.vspherecloud.capkit.io "c1" is invalid: `+
		`spec.datacenter: Invalid value: "DC1": field is immutable (was "DC0")`)

	deleting := bad.DeepCopy()
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	deleting.Finalizers = nil
	_, err = wh.ValidateUpdate(t.Context(), bad, deleting)
	require.NoError(t, err, "an invalid VSphereCluster being deleted can lose its finalizer")
	_, err = wh.ValidateDelete(t.Context(), vc)
	require.NoError(t, err)
}
