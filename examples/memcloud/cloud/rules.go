package cloud

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// UpdateSecurityGroupRules replaces the ingress rules of a security group with rules, validated
// as in CreateSecurityGroup, and returns the group as it is afterwards. An empty list removes
// every rule; rules equal to the current ones change nothing (the call is counted, the update
// is not: see Stats.Updated). It fails with ErrNotFound when the group is gone. Like every
// mutating call it is subject to fault injection, the lost-response case included.
func (c *Cloud) UpdateSecurityGroupRules(ctx context.Context, id string, rules []Rule) (*SecurityGroup, error) {
	sg, err := c.updateRules(ctx, id, rules)
	if err != nil {
		return nil, fmt.Errorf("cannot update the rules of security group %q: %w", id, err)
	}
	return sg, nil
}

func (c *Cloud) updateRules(ctx context.Context, id string, rules []Rule) (*SecurityGroup, error) {
	valid := func() error { return validRules(rules) }
	return onRecord(ctx, c, VerbUpdate.On(KindSecurityGroup), "id", id, valid, func(_ call, rec *record) (*SecurityGroup, error) {
		sg := rec.obj.(*SecurityGroup)
		if !slices.Equal(sg.Ingress, rules) {
			sg.Ingress = slices.Clone(rules)
			c.stats.Updated[KindSecurityGroup]++
		}
		return as[SecurityGroup](sg.clone(), nil)
	})
}

// formatRules renders rules in order, "tcp/6443/0.0.0.0/0,all/0/10.0.0.0/16", for fingerprints.
func formatRules(rules []Rule) string {
	parts := make([]string, 0, len(rules))
	for _, r := range rules {
		parts = append(parts, r.Protocol+"/"+strconv.Itoa(r.Port)+"/"+r.Source)
	}
	return strings.Join(parts, ",")
}
