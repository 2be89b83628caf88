package webhooks

import (
	"fmt"
	"net/netip"
	"regexp"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// immutable is the detail of every error about a field that cannot change.
const immutable = "field is immutable"

// dnsLabel matches a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// DefaultMemClusterSpec fills the unset fields of spec: network CIDR, the subnets (see DefaultSubnets), the
// load balancer port and the security group's ingress rules (see DefaultIngressRules). It never overwrites a
// value that is set, so it is safe to call more than once.
func DefaultMemClusterSpec(spec *v1beta2.MemClusterSpec) {
	if spec.Network.CIDR == "" {
		spec.Network.CIDR = v1beta2.DefaultNetworkCIDR
	}
	if len(spec.Network.Subnets) == 0 {
		spec.Network.Subnets = DefaultSubnets(spec.Network.CIDR)
	}
	if spec.LoadBalancer.Port == 0 {
		spec.LoadBalancer.Port = v1beta2.DefaultLoadBalancerPort
	}
	if len(spec.SecurityGroup.IngressRules) == 0 {
		spec.SecurityGroup.IngressRules = DefaultIngressRules(spec.LoadBalancer.Port)
	}
}

// ValidateMemClusterSpec checks spec, found at path (spec, or spec.template.spec of a template): a valid
// network CIDR; subnets with unique names, valid CIDRs inside the network, no overlap, and at least one
// subnet of each role; a load balancer port from 1 to 65535; ingress rules with a supported protocol, a port
// from 1 to 65535, a canonical CIDR and no duplicates; a control plane endpoint with both host and port or
// neither; unique failure domain names that are DNS labels.
func ValidateMemClusterSpec(spec *v1beta2.MemClusterSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateNetwork(&spec.Network, path.Child("network"))...)

	if p := spec.LoadBalancer.Port; p < 1 || p > 65535 {
		errs = append(errs, field.Invalid(path.Child("loadBalancer", "port"), p, "must be from 1 to 65535"))
	}
	errs = append(errs, validateIngressRules(spec.SecurityGroup.IngressRules, path.Child("securityGroup", "ingressRules"))...)

	ep, epPath := spec.ControlPlaneEndpoint, path.Child("controlPlaneEndpoint")
	switch {
	case ep.Host != "" && ep.Port == 0:
		errs = append(errs, field.Required(epPath.Child("port"), "must be set when host is set"))
	case ep.Host == "" && ep.Port != 0:
		errs = append(errs, field.Required(epPath.Child("host"), "must be set when port is set"))
	case ep.Port < 0 || ep.Port > 65535:
		errs = append(errs, field.Invalid(epPath.Child("port"), ep.Port, "must be from 1 to 65535"))
	}

	if ref := spec.IdentityRef; ref != nil && ref.Kind != v1beta2.MemClusterIdentityKind {
		errs = append(errs, field.NotSupported(path.Child("identityRef", "kind"), ref.Kind, []string{v1beta2.MemClusterIdentityKind}))
	}

	seen := map[string]bool{}
	for i, fd := range spec.FailureDomains {
		p := path.Child("failureDomains").Index(i)
		switch {
		case !dnsLabel.MatchString(fd) || len(fd) > 63:
			errs = append(errs, field.Invalid(p, fd, "must be a DNS label: lower-case letters, digits and '-', at most 63 characters"))
		case seen[fd]:
			errs = append(errs, field.Duplicate(p, fd))
		}
		seen[fd] = true
	}
	return errs
}

func validateNetwork(n *v1beta2.NetworkSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	network, ferr := parseCIDR(path.Child("cidr"), n.CIDR, minNetworkBits, maxNetworkBits)
	if ferr != nil {
		errs = append(errs, ferr)
	}
	subnetsPath := path.Child("subnets")
	names := map[string]bool{}
	roles := map[v1beta2.SubnetRole]bool{}
	type parsed struct {
		name   string
		prefix netip.Prefix
	}
	var valid []parsed
	for i, s := range n.Subnets {
		p := subnetsPath.Index(i)
		switch {
		case s.Name == "":
			errs = append(errs, field.Required(p.Child("name"), "every subnet needs a name"))
		case !dnsLabel.MatchString(s.Name) || len(s.Name) > 63:
			errs = append(errs, field.Invalid(p.Child("name"), s.Name, "must be a DNS label: lower-case letters, digits and '-', at most 63 characters"))
		case names[s.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), s.Name))
		}
		names[s.Name] = true

		if s.Role != v1beta2.SubnetRoleControlPlane && s.Role != v1beta2.SubnetRoleWorker {
			errs = append(errs, field.NotSupported(p.Child("role"), s.Role, []v1beta2.SubnetRole{v1beta2.SubnetRoleControlPlane, v1beta2.SubnetRoleWorker}))
		}
		roles[s.Role] = true

		sp, ferr := parseCIDR(p.Child("cidr"), s.CIDR, minSubnetBits, maxSubnetBits)
		if ferr != nil {
			errs = append(errs, ferr)
			continue
		}
		if network.IsValid() && (sp.Bits() < network.Bits() || !network.Contains(sp.Addr())) {
			errs = append(errs, field.Invalid(p.Child("cidr"), s.CIDR, fmt.Sprintf("must be inside the network cidr %q", n.CIDR)))
			continue
		}
		for _, o := range valid {
			if o.prefix.Overlaps(sp) {
				errs = append(errs, field.Invalid(p.Child("cidr"), s.CIDR, fmt.Sprintf("overlaps subnet %q (%s)", o.name, o.prefix)))
				break
			}
		}
		valid = append(valid, parsed{name: s.Name, prefix: sp})
	}
	for _, r := range []v1beta2.SubnetRole{v1beta2.SubnetRoleControlPlane, v1beta2.SubnetRoleWorker} {
		if !roles[r] {
			errs = append(errs, field.Required(subnetsPath, fmt.Sprintf("needs a subnet with role %q", r)))
		}
	}
	return errs
}

// ValidateMemClusterSpecUpdate checks that an update of a MemCluster's spec, found at path, keeps the fields
// that cannot change: the network (CIDR and subnets), the load balancer port, and the control plane endpoint
// once it is set. The failure domains and the security group's ingress rules may change.
func ValidateMemClusterSpecUpdate(oldSpec, newSpec *v1beta2.MemClusterSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if oldSpec.Network.CIDR != newSpec.Network.CIDR {
		errs = append(errs, field.Forbidden(path.Child("network", "cidr"), immutable))
	}
	if !slices.Equal(oldSpec.Network.Subnets, newSpec.Network.Subnets) {
		errs = append(errs, field.Forbidden(path.Child("network", "subnets"), immutable))
	}
	if oldSpec.LoadBalancer.Port != newSpec.LoadBalancer.Port {
		errs = append(errs, field.Forbidden(path.Child("loadBalancer", "port"), immutable))
	}
	if !oldSpec.ControlPlaneEndpoint.IsZero() && oldSpec.ControlPlaneEndpoint != newSpec.ControlPlaneEndpoint {
		errs = append(errs, field.Forbidden(path.Child("controlPlaneEndpoint"), immutable+" once set"))
	}
	if (oldSpec.IdentityRef == nil) != (newSpec.IdentityRef == nil) || (oldSpec.IdentityRef != nil && *oldSpec.IdentityRef != *newSpec.IdentityRef) {
		// Another account cannot see the cluster's resources: they would leak, and be created again.
		errs = append(errs, field.Forbidden(path.Child("identityRef"), immutable+": the resources live in the identity's account"))
	}
	return errs
}

// MemCluster is the defaulting and validating admission webhook of MemCluster: DefaultMemClusterSpec,
// ValidateMemClusterSpec, and ValidateMemClusterSpecUpdate on a change.
var MemCluster = admission.Webhook[*v1beta2.MemCluster, v1beta2.MemClusterSpec]{
	GroupKind: groupKind("MemCluster"), Spec: func(c *v1beta2.MemCluster) *v1beta2.MemClusterSpec { return &c.Spec },
	DefaultSpec: DefaultMemClusterSpec, ValidateSpec: ValidateMemClusterSpec, ValidateSpecUpdate: ValidateMemClusterSpecUpdate,
	KeepStatus: true,
}

// groupKind returns the group and kind of a memcloud kind, which the webhooks' errors name.
func groupKind(kind string) schema.GroupKind { return v1beta2.GroupVersion.WithKind(kind).GroupKind() }

// invalid returns nil for no errors, else the Invalid API error the API server returns to the client.
func invalid(kind, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(groupKind(kind), name, errs)
}
