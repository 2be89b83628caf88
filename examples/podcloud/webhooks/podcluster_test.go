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
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
)

// errorStrings returns the errors as the lines the API server shows: "path: Type: value: detail".
func errorStrings(errs field.ErrorList) []string {
	if len(errs) == 0 {
		return nil
	}
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestDefaultPodClusterSpec(t *testing.T) {
	for _, tc := range []struct {
		name      string
		spec      v1beta2.PodClusterSpec
		wantType  v1beta2.ServiceType
		wantPort  int32
		namespace string
	}{
		{"empty", v1beta2.PodClusterSpec{}, v1beta2.ServiceClusterIP, 6443, ""},
		{"set values are kept", v1beta2.PodClusterSpec{Namespace: "workload",
			ControlPlaneService: v1beta2.ControlPlaneServiceSpec{Type: v1beta2.ServiceLoadBalancer, Port: 443}},
			v1beta2.ServiceLoadBalancer, 443, "workload"},
		{"only the port", v1beta2.PodClusterSpec{ControlPlaneService: v1beta2.ControlPlaneServiceSpec{Port: 8443}},
			v1beta2.ServiceClusterIP, 8443, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			webhooks.DefaultPodClusterSpec(&tc.spec)
			assert.Equal(t, tc.wantType, tc.spec.ControlPlaneService.Type)
			assert.Equal(t, tc.wantPort, tc.spec.ControlPlaneService.Port)
			assert.Equal(t, tc.namespace, tc.spec.Namespace)
		})
	}

	c := &v1beta2.PodCluster{}
	require.NoError(t, webhooks.PodCluster.Default(t.Context(), c))
	assert.Equal(t, v1beta2.ControlPlaneServiceSpec{Type: v1beta2.ServiceClusterIP, Port: 6443}, c.Spec.ControlPlaneService)
}

func TestValidatePodClusterSpec(t *testing.T) {
	for _, tc := range []struct {
		name string
		ep   contract.APIEndpoint
		want []string
	}{
		{"no endpoint", contract.APIEndpoint{}, nil},
		{"endpoint", contract.APIEndpoint{Host: "10.96.0.10", Port: 6443}, nil},
		{"host without port", contract.APIEndpoint{Host: "10.96.0.10"},
			[]string{`spec.controlPlaneEndpoint.port: Required value: must be set when host is set (host "10.96.0.10")`}},
		{"port without host", contract.APIEndpoint{Port: 6443},
			[]string{`spec.controlPlaneEndpoint.host: Required value: must be set when port is set (port 6443)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := v1beta2.PodClusterSpec{ControlPlaneEndpoint: tc.ep}
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidatePodClusterSpec(&spec, field.NewPath("spec"))))
		})
	}
}

func TestValidatePodClusterSpecUpdate(t *testing.T) {
	base := v1beta2.PodClusterSpec{Namespace: "a", ControlPlaneService: v1beta2.ControlPlaneServiceSpec{Type: v1beta2.ServiceClusterIP, Port: 6443}}
	with := func(f func(*v1beta2.PodClusterSpec)) v1beta2.PodClusterSpec {
		s := base
		f(&s)
		return s
	}
	endpoint := func(host string) v1beta2.PodClusterSpec {
		return with(func(s *v1beta2.PodClusterSpec) { s.ControlPlaneEndpoint = contract.APIEndpoint{Host: host, Port: 6443} })
	}
	withEP := endpoint("10.96.0.10")
	for _, tc := range []struct {
		name     string
		old, new v1beta2.PodClusterSpec
		want     []string
	}{
		{"no change", base, base, nil},
		{"endpoint set once", base, withEP, nil},
		{"endpoint kept", withEP, withEP, nil},
		{"namespace", base, with(func(s *v1beta2.PodClusterSpec) { s.Namespace = "b" }),
			[]string{`spec.namespace: Invalid value: "b": field is immutable (was "a")`}},
		{"namespace emptied", base, with(func(s *v1beta2.PodClusterSpec) { s.Namespace = "" }),
			[]string{`spec.namespace: Invalid value: "": field is immutable (was "a")`}},
		{"service type", base, with(func(s *v1beta2.PodClusterSpec) { s.ControlPlaneService.Type = v1beta2.ServiceNodePort }),
			[]string{`spec.controlPlaneService.type: Invalid value: "NodePort": field is immutable (was "ClusterIP")`}},
		{"service port", base, with(func(s *v1beta2.PodClusterSpec) { s.ControlPlaneService.Port = 443 }),
			[]string{`spec.controlPlaneService.port: Invalid value: 443: field is immutable (was 6443)`}},
		{"endpoint changed", withEP, endpoint("10.96.0.11"),
			[]string{`spec.controlPlaneEndpoint: Invalid value: "10.96.0.11:6443": field is immutable once set (was "10.96.0.10:6443")`}},
		{"endpoint removed", withEP, base,
			[]string{`spec.controlPlaneEndpoint: Invalid value: "": field is immutable once set (was "10.96.0.10:6443")`}},
		{"IPv6 endpoint removed", endpoint("fd00::1"), base,
			[]string{`spec.controlPlaneEndpoint: Invalid value: "": field is immutable once set (was "[fd00::1]:6443")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, errorStrings(webhooks.ValidatePodClusterSpecUpdate(&tc.old, &tc.new, field.NewPath("spec"))))
		})
	}
}

func TestPodClusterWebhook(t *testing.T) {
	ctx := t.Context()
	wh := webhooks.PodCluster
	c := &v1beta2.PodCluster{ObjectMeta: metav1.ObjectMeta{Name: "demo"}}
	require.NoError(t, wh.Default(ctx, c))
	_, err := wh.ValidateCreate(ctx, c)
	require.NoError(t, err)

	bad := c.DeepCopy()
	bad.Spec.ControlPlaneEndpoint.Host = "10.96.0.10"
	_, err = wh.ValidateCreate(ctx, bad)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), `PodCluster.infrastructure.podcloud.capkit.io "demo" is invalid: spec.controlPlaneEndpoint.port: Required value`)

	moved := c.DeepCopy()
	moved.Spec.Namespace = "elsewhere"
	_, err = wh.ValidateUpdate(ctx, c, moved)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), `spec.namespace: Invalid value: "elsewhere": field is immutable (was "")`)

	deleting := bad.DeepCopy()
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	_, err = wh.ValidateUpdate(ctx, bad, deleting)
	require.NoError(t, err, "a PodCluster being deleted is not validated again")

	_, err = wh.ValidateDelete(ctx, c)
	require.NoError(t, err)
}
