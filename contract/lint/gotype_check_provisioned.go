package lint

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/capkit/capkit/contract"
)

// RuleGoTypeSetProvisioned is the rule that a Go type's SetProvisioned writes the provisioned flag of the
// contract version (status.initialization.provisioned for v1beta2, status.ready for v1beta1), the one Cluster
// API reads.
const RuleGoTypeSetProvisioned = "gotype.set-provisioned"

// checkSetProvisioned checks that the SetProvisioned method of a type in role k (contract.ProvisionedAccessor, what
// capkit's scopes call) writes the field contract version v reads: on a new object, SetProvisioned(true) must make
// the field at the provisioned path true in the object's JSON. A type that has no such method, or has no such
// field (reported by the field rule), is not checked here. A method that panics on a new object is reported too.
func checkSetProvisioned(t reflect.Type, name string, k Kind, v contract.Version) Violations {
	var rule FieldRule
	for _, r := range Rules(k, v) {
		if r.Rule == prefixOf(k)+".provisioned" {
			rule = r
		}
	}
	if rule.Rule == "" {
		return nil
	}
	if ft, ok := resolve(t, rule.Path); !ok || ft.Kind() != reflect.Bool {
		return nil // the field rule reports it
	}
	obj, ok := reflect.New(t).Interface().(contract.ProvisionedAccessor)
	if !ok {
		return nil
	}
	got, err := provisionedAfterSet(obj, rule.Path)
	if err == nil && got {
		return nil
	}
	msg := fmt.Sprintf("SetProvisioned(true) on a new %s leaves %s unset", name, rule.Path)
	if err != nil {
		msg = fmt.Sprintf("SetProvisioned(true) on a new %s fails: %v", name, err)
	}
	return Violations{{Rule: RuleGoTypeSetProvisioned, Object: name, Path: rule.Path.String(), Message: msg + ", so Cluster API never sees the " +
		"infrastructure provisioned: make SetProvisioned write " + rule.Path.String() + pick(v,
		" (the v1beta1 flag)", " (embed "+initializationType(k)+" as status.initialization and delegate to it; allocate a pointer status.initialization first)")}}
}

// provisionedAfterSet calls SetProvisioned(true) on obj and reads the field at path of its JSON form.
func provisionedAfterSet(obj contract.ProvisionedAccessor, path contract.Path) (got bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	obj.SetProvisioned(true)
	raw, err := json.Marshal(obj)
	if err != nil {
		return false, fmt.Errorf("cannot marshal the object: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return false, fmt.Errorf("cannot unmarshal the object: %w", err)
	}
	var cur any = m
	for _, name := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return false, nil
		}
		cur = mm[name]
	}
	b, _ := cur.(bool)
	return b, nil
}

// prefixOf is the rule prefix of role k, e.g. "inframachine".
func prefixOf(k Kind) string {
	switch k {
	case KindInfraCluster:
		return "infracluster"
	case KindInfraMachine:
		return "inframachine"
	case KindInfraMachinePool:
		return "inframachinepool"
	}
	return ""
}

// initializationType names the embeddable status.initialization type of role k.
func initializationType(k Kind) string {
	switch k {
	case KindInfraCluster:
		return "contract.InfraClusterInitialization"
	case KindInfraMachine:
		return "contract.InfraMachineInitialization"
	case KindInfraMachinePool:
		return "contract.InfraMachinePoolInitialization"
	}
	return "the contract's initialization type"
}
