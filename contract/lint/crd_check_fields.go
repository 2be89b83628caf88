package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/capkit/capkit/contract"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// fieldProblem is a violation of a contract field rule in one API version's schema, with the fix it asks for.
type fieldProblem struct {
	v   Violation
	fix string
}

// checkSchema checks the schema of API version name against the fields contract version cv asks of role. When the
// status has the shape of the other contract version, its field problems are folded into one RuleCRDContractShape
// violation: one mistake (a label changed without the status), one violation.
func (c *crdChecker) checkSchema(role Kind, cv contract.Version, name string) {
	root := c.schemaOf(name)
	where := fmt.Sprintf("API version %q (contract %s)", name, cv)
	if root == nil {
		c.add(RuleCRDInvalid, "spec.versions["+name+"].schema", "%s has no openAPIV3Schema", where)
		return
	}
	untyped := map[string][]string{}
	var missing []contract.Path
	var problems []fieldProblem
	add := func(r FieldRule, path contract.Path, fix, format string, args ...any) {
		problems = append(problems, fieldProblem{fix: path.String() + ": " + fix, v: Violation{Rule: r.Rule, Object: c.object,
			Path: path.String(), Message: fmt.Sprintf(format, args...)}})
	}
	for _, r := range Rules(role, cv) {
		if slices.ContainsFunc(missing, func(p contract.Path) bool { return hasPrefix(r.Path, p) }) {
			continue // the parent is already reported missing
		}
		hint := crdHint(role, cv, r)
		s, res, at := lookupSchema(root, r.Path)
		switch res {
		case schemaMissing:
			if r.Required {
				missing = append(missing, r.Path)
				add(r, r.Path, "add it ("+hint+")", "%s has no %s%s: add %s to version %s's schema (%s)",
					where, r.Path, c.otherShape(root, role, cv, r), r.Path, name, hint)
			}
			continue
		case schemaUntyped:
			untyped[at.String()] = append(untyped[at.String()], r.Path.String())
			continue
		}
		if got := schemaType(s); got != r.Type {
			add(r, r.Path, "make it "+r.Type+" ("+hint+")", "%s has %s of type %s, want %s%s: %s",
				where, r.Path, got, r.Type, c.otherShape(root, role, cv, r), hint)
			continue
		}
		c.checkItems(where, r, s, add)
	}
	for at, fields := range untyped {
		c.add(RuleCRDUntypedField, at, "%s keeps unknown fields at %s (x-kubernetes-preserve-unknown-fields), so %s are stored but never validated: declare them in the schema",
			where, at, strings.Join(fields, ", "))
	}
	if c.checkShape(root, role, cv, name, problems) {
		problems = slices.DeleteFunc(problems, func(p fieldProblem) bool { return strings.HasPrefix(p.v.Path, "status.") })
	}
	for _, p := range problems {
		c.out = append(c.out, p.v)
	}
}

// crdHint is the fix of rule r for a CRD of role: the provisioned flag of contract v1beta2 names the type to embed.
func crdHint(role Kind, cv contract.Version, r FieldRule) string {
	if cv == contract.V1Beta1 || !strings.HasSuffix(r.Rule, ".provisioned") {
		return r.Hint
	}
	switch role {
	case KindInfraCluster:
		return "embed contract.InfraClusterInitialization as status.initialization; v1beta2 replaces status.ready"
	case KindInfraMachine:
		return "embed contract.InfraMachineInitialization as status.initialization; v1beta2 replaces status.ready"
	}
	return r.Hint
}

// checkItems checks the fields of the items (array) or values (map) of the schema s of rule r.
func (c *crdChecker) checkItems(where string, r FieldRule, s *apiextensionsv1.JSONSchemaProps,
	add func(r FieldRule, path contract.Path, fix, format string, args ...any)) {
	item := itemSchema(s)
	if item == nil || len(r.Items) == 0 {
		return
	}
	if strings.HasSuffix(r.Rule, ".conditions") && r.Path.String() == "status.conditions" {
		if _, res, _ := lookupSchema(item, contract.Path{"severity"}); res == schemaFound {
			add(r, r.Path, "make its items metav1.Condition", "%s: items of %s have a severity field: they are v1beta1 Cluster API conditions, contract v1beta2 wants metav1.Condition", where, r.Path)
			return
		}
	}
	for _, ir := range r.Items {
		full := append(append(contract.Path{}, r.Path...), ir.Path...)
		s, res, _ := lookupSchema(item, ir.Path)
		switch {
		case res == schemaMissing && ir.Required:
			add(ir, full, "add it ("+ir.Hint+")", "%s: items of %s have no %s: %s", where, r.Path, ir.Path, ir.Hint)
		case res == schemaFound && schemaType(s) != ir.Type:
			add(ir, full, "make it "+ir.Type+" ("+ir.Hint+")", "%s has %s of type %s, want %s: %s", where, full, schemaType(s), ir.Type, ir.Hint)
		}
	}
}

// otherShape explains a missing or mistyped field when the schema has it in the other contract's shape.
func (c *crdChecker) otherShape(root *apiextensionsv1.JSONSchemaProps, role Kind, cv contract.Version, r FieldRule) string {
	other := pick(cv, contract.V1Beta2, contract.V1Beta1)
	for _, o := range Rules(role, other) {
		if o.Rule != r.Rule {
			continue
		}
		if s, res, _ := lookupSchema(root, o.Path); res == schemaFound && schemaType(s) == o.Type {
			if o.Path.String() == r.Path.String() {
				return fmt.Sprintf(" (type %s is the %s shape)", o.Type, other)
			}
			return fmt.Sprintf(" but has %s, the %s field", o.Path, other)
		}
	}
	return ""
}

// checkShape reports a status whose shape is that of the other contract version than the label declares, with
// the fixes of the status field problems, and returns true when it does.
func (c *crdChecker) checkShape(root *apiextensionsv1.JSONSchemaProps, role Kind, cv contract.Version, name string, problems []fieldProblem) bool {
	if isTemplate(role) {
		return false
	}
	other := pick(cv, contract.V1Beta2, contract.V1Beta1)
	var wrong, right []string // signs of the other shape; required fields of the declared one that are missing
	for _, r := range Rules(role, cv) {
		if _, res, _ := lookupSchema(root, r.Path); res == schemaMissing && r.Required && r.Path[0] == "status" {
			right = append(right, r.Path.String()+" missing")
		}
	}
	for _, o := range Rules(role, other) {
		if o.Path[0] != "status" {
			continue
		}
		s, res, _ := lookupSchema(root, o.Path)
		if res != schemaFound || schemaType(s) != o.Type {
			continue
		}
		if slices.ContainsFunc(Rules(role, cv), func(d FieldRule) bool { return d.Type == o.Type && d.Path.String() == o.Path.String() }) {
			continue // a field of both contracts (status.dataSecretName; status.ready of a v1beta2 machine pool)
		}
		if other == contract.V1Beta2 && strings.HasSuffix(o.Rule, ".conditions") {
			continue // v1beta1 types have status.conditions too (Cluster API's own condition type)
		}
		sign := o.Path.String() + " present"
		if o.Rule == "infracluster.failureDomains" {
			sign = o.Path.String() + " is " + pick(other, "a map", "a list")
		}
		wrong = append(wrong, sign)
	}
	if len(right) == 0 || len(wrong) == 0 {
		return false
	}
	var fixes []string
	for _, p := range problems {
		if strings.HasPrefix(p.v.Path, "status.") {
			fixes = append(fixes, p.fix)
		}
	}
	c.add(RuleCRDContractShape, "spec.versions["+name+"].schema.openAPIV3Schema.properties.status",
		"label declares contract %s but status has %s shape: %s; %s in version %s's schema: %s", cv, other,
		strings.Join(append(wrong, right...), ", "), pick(cv,
			"the v1beta1 contract reads status.ready: declare cluster.x-k8s.io/v1beta2 instead, or fix", "fix"),
		name, strings.Join(fixes, "; "))
	return true
}
