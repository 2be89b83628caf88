package webhooks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/identity"
)

// errorStrings returns the errors as "path: Type: detail" strings (values left out) for compact assertions.
func errorStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Field+": "+string(e.Type)+": "+e.Detail)
	}
	return out
}

func TestDefaultSubnets(t *testing.T) {
	for _, tc := range []struct {
		network string
		want    []string // controlplane, worker
	}{
		{"10.0.0.0/16", []string{"10.0.0.0/24", "10.0.1.0/24"}},
		{"10.0.0.0/8", []string{"10.0.0.0/24", "10.0.1.0/24"}},
		{"192.168.4.0/23", []string{"192.168.4.0/24", "192.168.5.0/24"}},
		{"192.168.4.0/24", []string{"192.168.4.0/25", "192.168.4.128/25"}},
		{"172.16.0.0/27", []string{"172.16.0.0/28", "172.16.0.16/28"}},
		{"172.16.0.0/28", nil},   // cannot be split into two subnets of at most /28
		{"10.0.0.1/16", nil},     // host bits set
		{"not-a-cidr", nil},      // unparseable
		{"2001:db8::/32", nil},   // not IPv4
		{"10.255.255.0/23", nil}, // host bits set
		{"10.255.254.0/23", []string{"10.255.254.0/24", "10.255.255.0/24"}},
	} {
		t.Run(tc.network, func(t *testing.T) {
			got := webhooks.DefaultSubnets(tc.network)
			if len(tc.want) == 0 {
				assert.Nil(t, got)
				return
			}
			require.Len(t, got, 2)
			assert.Equal(t, v1beta2.SubnetSpec{Name: "controlplane", CIDR: tc.want[0], Role: v1beta2.SubnetRoleControlPlane}, got[0])
			assert.Equal(t, v1beta2.SubnetSpec{Name: "worker", CIDR: tc.want[1], Role: v1beta2.SubnetRoleWorker}, got[1])
			// The defaults always pass validation.
			spec := v1beta2.MemClusterSpec{Network: v1beta2.NetworkSpec{CIDR: tc.network, Subnets: got}, LoadBalancer: v1beta2.LoadBalancerSpec{Port: 6443}}
			assert.Empty(t, webhooks.ValidateMemClusterSpec(&spec, field.NewPath("spec")))
		})
	}
}

// defaultedSpec is an empty MemClusterSpec after DefaultMemClusterSpec: a network with a control plane and a
// worker subnet, a load balancer on 6443 and a security group open to it.
var defaultedSpec = v1beta2.MemClusterSpec{
	Network: v1beta2.NetworkSpec{CIDR: "10.0.0.0/16", Subnets: []v1beta2.SubnetSpec{
		{Name: "controlplane", CIDR: "10.0.0.0/24", Role: v1beta2.SubnetRoleControlPlane},
		{Name: "worker", CIDR: "10.0.1.0/24", Role: v1beta2.SubnetRoleWorker},
	}},
	LoadBalancer: v1beta2.LoadBalancerSpec{Port: 6443},
	SecurityGroup: v1beta2.SecurityGroupSpec{IngressRules: []v1beta2.IngressRule{
		{Protocol: v1beta2.ProtocolTCP, Port: 6443, CIDR: "0.0.0.0/0"},
	}},
}

func TestDefaultMemClusterSpec(t *testing.T) {
	t.Run("empty spec", func(t *testing.T) {
		spec := v1beta2.MemClusterSpec{}
		webhooks.DefaultMemClusterSpec(&spec)
		assert.Equal(t, defaultedSpec, spec)
	})
	t.Run("the default rule follows the load balancer port", func(t *testing.T) {
		spec := v1beta2.MemClusterSpec{LoadBalancer: v1beta2.LoadBalancerSpec{Port: 443}}
		webhooks.DefaultMemClusterSpec(&spec)
		assert.Equal(t, webhooks.DefaultIngressRules(443), spec.SecurityGroup.IngressRules)
		assert.Equal(t, []v1beta2.IngressRule{{Protocol: "tcp", Port: 443, CIDR: "0.0.0.0/0"}}, spec.SecurityGroup.IngressRules)
	})
	t.Run("set values are kept", func(t *testing.T) {
		subnets := []v1beta2.SubnetSpec{{Name: "all", CIDR: "192.168.0.0/24", Role: v1beta2.SubnetRoleWorker}}
		spec := v1beta2.MemClusterSpec{
			Network:      v1beta2.NetworkSpec{CIDR: "192.168.0.0/20", Subnets: subnets},
			LoadBalancer: v1beta2.LoadBalancerSpec{Port: 443},
			SecurityGroup: v1beta2.SecurityGroupSpec{IngressRules: []v1beta2.IngressRule{
				{Protocol: v1beta2.ProtocolUDP, Port: 51820, CIDR: "203.0.113.0/24"},
			}},
		}
		want := *spec.DeepCopy()
		webhooks.DefaultMemClusterSpec(&spec)
		assert.Equal(t, want, spec)
	})
	t.Run("webhook", func(t *testing.T) {
		c := &v1beta2.MemCluster{}
		require.NoError(t, webhooks.MemCluster.Default(creating(), c))
		assert.Equal(t, "10.0.0.0/16", c.Spec.Network.CIDR)
		assert.Len(t, c.Spec.Network.Subnets, 2)
	})
}

// validClusterSpec returns a defaulted, valid spec.
func validClusterSpec() v1beta2.MemClusterSpec {
	s := v1beta2.MemClusterSpec{FailureDomains: []string{"az-1", "az-2"}}
	webhooks.DefaultMemClusterSpec(&s)
	return s
}

func TestValidateMemClusterSpec(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*v1beta2.MemClusterSpec)
		want   []string
	}{
		{"valid", func(*v1beta2.MemClusterSpec) {}, nil},
		{"endpoint set", func(s *v1beta2.MemClusterSpec) {
			s.ControlPlaneEndpoint = contract.APIEndpoint{Host: "lb.memcloud.local", Port: 6443}
		}, nil},
		{"network cidr not a cidr", func(s *v1beta2.MemClusterSpec) { s.Network.CIDR = "10.0.0.0" },
			[]string{`spec.network.cidr: FieldValueInvalid: must be an IPv4 CIDR such as "10.0.0.0/16"`}},
		{"network cidr host bits", func(s *v1beta2.MemClusterSpec) { s.Network.CIDR = "10.0.0.1/16" },
			[]string{`spec.network.cidr: FieldValueInvalid: must not have host bits set (did you mean "10.0.0.0/16"?)`}},
		{"network too large", func(s *v1beta2.MemClusterSpec) { s.Network.CIDR = "10.0.0.0/7" },
			[]string{"spec.network.cidr: FieldValueInvalid: must have a prefix length from /8 to /28"}},
		{"subnet outside network", func(s *v1beta2.MemClusterSpec) { s.Network.Subnets[1].CIDR = "10.1.0.0/24" },
			[]string{`spec.network.subnets[1].cidr: FieldValueInvalid: must be inside the network cidr "10.0.0.0/16"`}},
		{"subnet larger than network", func(s *v1beta2.MemClusterSpec) {
			s.Network.CIDR = "10.0.0.0/24"
			s.Network.Subnets[0].CIDR = "10.0.0.0/16"
			s.Network.Subnets[1].CIDR = "10.0.0.128/25"
		}, []string{`spec.network.subnets[0].cidr: FieldValueInvalid: must be inside the network cidr "10.0.0.0/24"`}},
		{"subnets overlap", func(s *v1beta2.MemClusterSpec) { s.Network.Subnets[1].CIDR = "10.0.0.128/25" },
			[]string{`spec.network.subnets[1].cidr: FieldValueInvalid: overlaps subnet "controlplane" (10.0.0.0/24)`}},
		{"subnet too small", func(s *v1beta2.MemClusterSpec) { s.Network.Subnets[1].CIDR = "10.0.1.0/29" },
			[]string{"spec.network.subnets[1].cidr: FieldValueInvalid: must have a prefix length from /16 to /28"}},
		{"duplicate subnet name", func(s *v1beta2.MemClusterSpec) { s.Network.Subnets[1].Name = "controlplane" },
			[]string{"spec.network.subnets[1].name: FieldValueDuplicate: "}},
		{"subnet name not a label", func(s *v1beta2.MemClusterSpec) { s.Network.Subnets[1].Name = "Worker_1" },
			[]string{"spec.network.subnets[1].name: FieldValueInvalid: must be a DNS label: lower-case letters, digits and '-', at most 63 characters"}},
		{"subnet without name", func(s *v1beta2.MemClusterSpec) { s.Network.Subnets[1].Name = "" },
			[]string{"spec.network.subnets[1].name: FieldValueRequired: every subnet needs a name"}},
		{"unknown role", func(s *v1beta2.MemClusterSpec) { s.Network.Subnets[1].Role = "bastion" }, []string{
			`spec.network.subnets[1].role: FieldValueNotSupported: supported values: "controlplane", "worker"`,
			`spec.network.subnets: FieldValueRequired: needs a subnet with role "worker"`,
		}},
		{"no subnets", func(s *v1beta2.MemClusterSpec) { s.Network.Subnets = nil }, []string{
			`spec.network.subnets: FieldValueRequired: needs a subnet with role "controlplane"`,
			`spec.network.subnets: FieldValueRequired: needs a subnet with role "worker"`,
		}},
		{"port zero", func(s *v1beta2.MemClusterSpec) { s.LoadBalancer.Port = 0 },
			[]string{"spec.loadBalancer.port: FieldValueInvalid: must be from 1 to 65535"}},
		{"port too high", func(s *v1beta2.MemClusterSpec) { s.LoadBalancer.Port = 70000 },
			[]string{"spec.loadBalancer.port: FieldValueInvalid: must be from 1 to 65535"}},
		{"endpoint host without port", func(s *v1beta2.MemClusterSpec) { s.ControlPlaneEndpoint.Host = "lb" },
			[]string{"spec.controlPlaneEndpoint.port: FieldValueRequired: must be set when host is set"}},
		{"endpoint port without host", func(s *v1beta2.MemClusterSpec) { s.ControlPlaneEndpoint.Port = 6443 },
			[]string{"spec.controlPlaneEndpoint.host: FieldValueRequired: must be set when port is set"}},
		{"endpoint port out of range", func(s *v1beta2.MemClusterSpec) {
			s.ControlPlaneEndpoint = contract.APIEndpoint{Host: "lb", Port: 65536}
		}, []string{"spec.controlPlaneEndpoint.port: FieldValueInvalid: must be from 1 to 65535"}},
		{"ingress rules", func(s *v1beta2.MemClusterSpec) {
			s.SecurityGroup.IngressRules = []v1beta2.IngressRule{{Protocol: "tcp", Port: 6443, CIDR: "203.0.113.0/24"},
				{Protocol: "udp", Port: 65535, CIDR: "0.0.0.0/0"}, {Protocol: "tcp", Port: 1, CIDR: "10.1.2.3/32"}}
		}, nil},
		{"no ingress rules", func(s *v1beta2.MemClusterSpec) { s.SecurityGroup.IngressRules = nil }, nil},
		{"rule protocol", func(s *v1beta2.MemClusterSpec) { s.SecurityGroup.IngressRules[0].Protocol = "icmp" },
			[]string{`spec.securityGroup.ingressRules[0].protocol: FieldValueNotSupported: supported values: "tcp", "udp"`}},
		{"rule port zero", func(s *v1beta2.MemClusterSpec) { s.SecurityGroup.IngressRules[0].Port = 0 },
			[]string{"spec.securityGroup.ingressRules[0].port: FieldValueInvalid: must be from 1 to 65535"}},
		{"rule port too high", func(s *v1beta2.MemClusterSpec) { s.SecurityGroup.IngressRules[0].Port = 65536 },
			[]string{"spec.securityGroup.ingressRules[0].port: FieldValueInvalid: must be from 1 to 65535"}},
		{"rule cidr host bits", func(s *v1beta2.MemClusterSpec) { s.SecurityGroup.IngressRules[0].CIDR = "192.168.1.1/24" },
			[]string{`spec.securityGroup.ingressRules[0].cidr: FieldValueInvalid: must not have host bits set (did you mean "192.168.1.0/24"?)`}},
		{"rule cidr not IPv4", func(s *v1beta2.MemClusterSpec) { s.SecurityGroup.IngressRules[0].CIDR = "::/0" },
			[]string{`spec.securityGroup.ingressRules[0].cidr: FieldValueInvalid: must be an IPv4 CIDR such as "10.0.0.0/16"`}},
		{"duplicate rule", func(s *v1beta2.MemClusterSpec) {
			s.SecurityGroup.IngressRules = append(s.SecurityGroup.IngressRules, s.SecurityGroup.IngressRules[0])
		}, []string{"spec.securityGroup.ingressRules[1]: FieldValueDuplicate: "}},
		{"several bad fields of one rule", func(s *v1beta2.MemClusterSpec) {
			s.SecurityGroup.IngressRules = []v1beta2.IngressRule{{Protocol: "sctp", Port: -1, CIDR: "anywhere"}}
		}, []string{
			`spec.securityGroup.ingressRules[0].protocol: FieldValueNotSupported: supported values: "tcp", "udp"`,
			"spec.securityGroup.ingressRules[0].port: FieldValueInvalid: must be from 1 to 65535",
			`spec.securityGroup.ingressRules[0].cidr: FieldValueInvalid: must be an IPv4 CIDR such as "10.0.0.0/16"`,
		}},
		{"duplicate failure domain", func(s *v1beta2.MemClusterSpec) { s.FailureDomains = []string{"az-1", "az-1"} },
			[]string{"spec.failureDomains[1]: FieldValueDuplicate: "}},
		{"failure domain not a label", func(s *v1beta2.MemClusterSpec) { s.FailureDomains = []string{"AZ 1"} },
			[]string{"spec.failureDomains[0]: FieldValueInvalid: must be a DNS label: lower-case letters, digits and '-', at most 63 characters"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := validClusterSpec()
			tc.mutate(&spec)
			assert.Equal(t, tc.want, nilIfEmpty(errorStrings(webhooks.ValidateMemClusterSpec(&spec, field.NewPath("spec")))))
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestValidateMemClusterSpecUpdate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		old    func(*v1beta2.MemClusterSpec)
		mutate func(*v1beta2.MemClusterSpec)
		want   []string
	}{
		{"no change", nil, func(*v1beta2.MemClusterSpec) {}, nil},
		{"failure domains may change", nil, func(s *v1beta2.MemClusterSpec) { s.FailureDomains = []string{"az-3"} }, nil},
		{"ingress rules may change", nil, func(s *v1beta2.MemClusterSpec) {
			s.SecurityGroup.IngressRules = []v1beta2.IngressRule{{Protocol: "tcp", Port: 6443, CIDR: "203.0.113.0/24"}}
		}, nil},
		{"endpoint may be set once", nil, func(s *v1beta2.MemClusterSpec) {
			s.ControlPlaneEndpoint = contract.APIEndpoint{Host: "lb", Port: 6443}
		}, nil},
		{"endpoint cannot change once set", func(s *v1beta2.MemClusterSpec) {
			s.ControlPlaneEndpoint = contract.APIEndpoint{Host: "lb", Port: 6443}
		}, func(s *v1beta2.MemClusterSpec) { s.ControlPlaneEndpoint.Host = "other" },
			[]string{"spec.controlPlaneEndpoint: FieldValueForbidden: field is immutable once set"}},
		{"endpoint cannot be removed", func(s *v1beta2.MemClusterSpec) {
			s.ControlPlaneEndpoint = contract.APIEndpoint{Host: "lb", Port: 6443}
		}, func(s *v1beta2.MemClusterSpec) { s.ControlPlaneEndpoint = contract.APIEndpoint{} },
			[]string{"spec.controlPlaneEndpoint: FieldValueForbidden: field is immutable once set"}},
		{"network cidr", nil, func(s *v1beta2.MemClusterSpec) { s.Network.CIDR = "10.0.0.0/8" },
			[]string{"spec.network.cidr: FieldValueForbidden: field is immutable"}},
		{"subnets", nil, func(s *v1beta2.MemClusterSpec) { s.Network.Subnets[1].CIDR = "10.0.2.0/24" },
			[]string{"spec.network.subnets: FieldValueForbidden: field is immutable"}},
		{"port", nil, func(s *v1beta2.MemClusterSpec) { s.LoadBalancer.Port = 443 },
			[]string{"spec.loadBalancer.port: FieldValueForbidden: field is immutable"}},
		{"identity cannot be set later", nil, func(s *v1beta2.MemClusterSpec) {
			s.IdentityRef = &identity.Ref{Kind: v1beta2.MemClusterIdentityKind, Name: "team-a"}
		}, []string{"spec.identityRef: FieldValueForbidden: field is immutable: the resources live in the identity's account"}},
		{"identity cannot change", func(s *v1beta2.MemClusterSpec) {
			s.IdentityRef = &identity.Ref{Kind: v1beta2.MemClusterIdentityKind, Name: "team-a"}
		}, func(s *v1beta2.MemClusterSpec) {
			s.IdentityRef = &identity.Ref{Kind: v1beta2.MemClusterIdentityKind, Name: "team-b"}
		},
			[]string{"spec.identityRef: FieldValueForbidden: field is immutable: the resources live in the identity's account"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldSpec := validClusterSpec()
			if tc.old != nil {
				tc.old(&oldSpec)
			}
			newSpec := *oldSpec.DeepCopy()
			tc.mutate(&newSpec)
			got := webhooks.ValidateMemClusterSpecUpdate(&oldSpec, &newSpec, field.NewPath("spec"))
			assert.Equal(t, tc.want, nilIfEmpty(errorStrings(got)))
		})
	}
}

func TestMemClusterWebhookErrors(t *testing.T) {
	ctx := t.Context()
	wh := webhooks.MemCluster
	c := &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Name: "demo"}, Spec: validClusterSpec()}

	_, err := wh.ValidateCreate(ctx, c)
	require.NoError(t, err)

	bad := c.DeepCopy()
	bad.Spec.Network.CIDR = "10.0.0.0/33"
	_, err = wh.ValidateCreate(ctx, bad)
	require.True(t, apierrors.IsInvalid(err), "want an Invalid API error, got %v", err)
	assert.Contains(t, err.Error(), `MemCluster.infrastructure.memcloud.capkit.io "demo" is invalid`)
	assert.Contains(t, err.Error(), `spec.network.cidr: Invalid value: "10.0.0.0/33"`)

	badRule := c.DeepCopy()
	badRule.Spec.SecurityGroup.IngressRules = []v1beta2.IngressRule{{Protocol: "tcp", Port: 70000, CIDR: "10.0.0.1/8"}}
	_, err = wh.ValidateUpdate(ctx, c, badRule)
	require.True(t, apierrors.IsInvalid(err), "want an Invalid API error, got %v", err)
	assert.Contains(t, err.Error(), `spec.securityGroup.ingressRules[0].port: Invalid value: 70000`, "the field and its value")
	assert.Contains(t, err.Error(), `spec.securityGroup.ingressRules[0].cidr: Invalid value: "10.0.0.1/8"`)

	changed := c.DeepCopy()
	changed.Spec.LoadBalancer.Port = 443
	_, err = wh.ValidateUpdate(ctx, c, changed)
	require.True(t, apierrors.IsInvalid(err))
	assert.Contains(t, err.Error(), "spec.loadBalancer.port: Forbidden: field is immutable")

	// A MemCluster being deleted whose spec is invalid can still lose its finalizer.
	deleting := bad.DeepCopy()
	now := metav1.Now()
	deleting.DeletionTimestamp = &now
	deleting.Finalizers = nil
	_, err = wh.ValidateUpdate(ctx, bad, deleting)
	require.NoError(t, err)

	_, err = wh.ValidateDelete(ctx, bad)
	require.NoError(t, err)
}
