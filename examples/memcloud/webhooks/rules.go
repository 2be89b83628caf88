package webhooks

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// DefaultIngressRules returns the ingress rules the defaulting webhook gives a security group without any:
// the API server's port, apiServerPort (the load balancer port), over TCP from anywhere.
func DefaultIngressRules(apiServerPort int32) []v1beta2.IngressRule {
	return []v1beta2.IngressRule{{Protocol: v1beta2.ProtocolTCP, Port: apiServerPort, CIDR: v1beta2.AnyIPv4}}
}

// validateIngressRules checks the ingress rules found at path: a supported protocol, a port from 1 to 65535,
// a canonical IPv4 CIDR (any prefix length), and no rule listed twice. Every error names the field and its
// value.
func validateIngressRules(rules []v1beta2.IngressRule, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[v1beta2.IngressRule]bool{}
	for i, r := range rules {
		p := path.Index(i)
		if r.Protocol != v1beta2.ProtocolTCP && r.Protocol != v1beta2.ProtocolUDP {
			errs = append(errs, field.NotSupported(p.Child("protocol"), r.Protocol, []v1beta2.Protocol{v1beta2.ProtocolTCP, v1beta2.ProtocolUDP}))
		}
		if r.Port < 1 || r.Port > 65535 {
			errs = append(errs, field.Invalid(p.Child("port"), r.Port, "must be from 1 to 65535"))
		}
		if _, ferr := parseCIDR(p.Child("cidr"), r.CIDR, 0, 32); ferr != nil {
			errs = append(errs, ferr)
		}
		if seen[r] {
			errs = append(errs, field.Duplicate(p, r))
		}
		seen[r] = true
	}
	return errs
}
