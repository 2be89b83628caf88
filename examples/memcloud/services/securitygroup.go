package services

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// SecurityGroup is the step that creates the cluster's security group and keeps its ingress rules those of
// the spec: spec.securityGroup.ingressRules (defaulted to the API server port from anywhere) and everything
// from inside the network. Rules changed in the spec, or out of band, are put back in place
// (conditions.ReasonDriftCorrected, then ready at the next reconcile).
type SecurityGroup struct{ base }

// NewSecurityGroup returns the security group service of memcloud c.
func NewSecurityGroup(c *cloud.Cloud) (*SecurityGroup, error) {
	b, err := newBase(c, "security group")
	return &SecurityGroup{b}, err
}

// Reconcile ensures the security group exists with the rules of the spec.
func (g *SecurityGroup) Reconcile(ctx context.Context, s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	netID, ok := s.ResourceID(KeyNetwork)
	if !ok {
		return g.waitingForNetwork(), nil
	}
	spec := clusterSpec(s.InfraCluster())
	res, err := ensure.Exists(ctx, s, KeySecurityGroup, g.res.SecurityGroups, ensure.Given(cloud.SecurityGroupSpec{
		Name: clusterResource(s, KeySecurityGroup), NetworkID: netID,
		Description: "cluster " + ClusterTagValue(s.InfraCluster().Namespace, s.Cluster().Name),
		Ingress:     IngressRules(spec),
	}), tagsOf(s))
	return res.Result, err
}

// IngressRules returns the ingress rules of a cluster's security group for spec, defaulted as the webhook
// does: spec.securityGroup.ingressRules (by default the API server port from anywhere), then every protocol
// from inside the network (spec.network.cidr). spec is not changed.
func IngressRules(spec v1beta2.MemClusterSpec) []cloud.Rule {
	webhooks.DefaultMemClusterSpec(&spec) // a copy: the defaults replace empty fields, never change elements
	rules := make([]cloud.Rule, 0, len(spec.SecurityGroup.IngressRules)+1)
	for _, r := range spec.SecurityGroup.IngressRules {
		rules = append(rules, cloud.Rule{Protocol: string(r.Protocol), Port: int(r.Port), Source: r.CIDR})
	}
	return append(rules, cloud.Rule{Protocol: "all", Source: spec.Network.CIDR})
}

// Delete deletes the security group; it waits while instances use it.
func (g *SecurityGroup) Delete(ctx context.Context, s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	return g.deleted(s, KeySecurityGroup)(ensure.Deleted(ctx, s, KeySecurityGroup, g.res.SecurityGroups))
}

// newSecurityGroups returns memcloud's security groups as a ensure.Resource and a ensure.Updater: their
// ingress rules change in place (UpdateSecurityGroupRules); their name, network and description cannot.
func newSecurityGroups(c *cloud.Cloud) ensure.Resource[cloud.SecurityGroupSpec, *cloud.SecurityGroup] {
	f := kind[cloud.SecurityGroupSpec](c, "security-group", c.GetSecurityGroup, c.FindSecurityGroups, c.DeleteSecurityGroup,
		func(g *cloud.SecurityGroup) string { return g.ID })
	f.ValidateFunc = func(s cloud.SecurityGroupSpec) error {
		return errors.Join(required("name", s.Name), required("networkID", s.NetworkID), validRules(s.Ingress))
	}
	f.CreateFunc = func(ctx context.Context, s cloud.SecurityGroupSpec, token string, tags map[string]string) (*cloud.SecurityGroup, error) {
		s.IdempotencyToken, s.Tags = token, tags
		return created(c.CreateSecurityGroup(ctx, s))
	}
	f.DiffFunc = securityGroupDiff
	f.UpdateFunc = func(ctx context.Context, id string, spec cloud.SecurityGroupSpec, _ *cloud.SecurityGroup) (*cloud.SecurityGroup, error) {
		return c.UpdateSecurityGroupRules(ctx, id, spec.Ingress)
	}
	return ensure.NewResource(f)
}

// securityGroupDiff names the fields of the security group that differ from spec: "name", "networkID" and
// "description" cannot change in place (replace), "ingress" can. The rules are compared as sets: their order
// does not matter.
func securityGroupDiff(spec cloud.SecurityGroupSpec, obs *cloud.SecurityGroup) (fields []string, replace bool) {
	for _, f := range []struct {
		name       string
		want, have string
	}{
		{"name", spec.Name, obs.Name},
		{"networkID", spec.NetworkID, obs.NetworkID},
		{"description", spec.Description, obs.Description},
	} {
		if f.want != f.have {
			fields, replace = append(fields, f.name), true
		}
	}
	if !sameRules(spec.Ingress, obs.Ingress) {
		fields = append(fields, "ingress")
	}
	return fields, replace
}

// sameRules reports whether a and b hold the same rules, in any order.
func sameRules(a, b []cloud.Rule) bool {
	return len(a) == len(b) && slices.Equal(sortedRules(a), sortedRules(b))
}

func sortedRules(rules []cloud.Rule) []cloud.Rule {
	return slices.SortedFunc(slices.Values(rules), func(x, y cloud.Rule) int {
		return cmp.Or(cmp.Compare(x.Protocol, y.Protocol), cmp.Compare(x.Port, y.Port), cmp.Compare(x.Source, y.Source))
	})
}

// validRules checks the rules as memcloud does, before they reach it.
func validRules(rules []cloud.Rule) error {
	errs := make([]error, 0, len(rules))
	for i, r := range rules {
		field := fmt.Sprintf("ingress[%d]", i)
		switch r.Protocol {
		case "tcp", "udp":
			if r.Port < 1 || r.Port > 65535 {
				errs = append(errs, fmt.Errorf("%s.port %d must be from 1 to 65535 for %s", field, r.Port, r.Protocol))
			}
		case "icmp", "all":
			if r.Port != 0 {
				errs = append(errs, fmt.Errorf("%s.port %d must be 0 for %s", field, r.Port, r.Protocol))
			}
		default:
			errs = append(errs, fmt.Errorf("%s.protocol %q must be one of tcp, udp, icmp, all", field, r.Protocol))
		}
		errs = append(errs, cidr(field+".source", r.Source))
	}
	return errors.Join(errs...)
}
