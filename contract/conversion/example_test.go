package conversion_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
)

// Example_conditions converts v1beta1 conditions to metav1.Conditions and back: the severity and the reason
// that v1beta2 cannot hold travel in the stash.
func Example_conditions() {
	v1 := []conversion.V1Beta1Condition{
		{Type: "Ready", Status: corev1.ConditionFalse, Severity: conversion.SeverityError, Reason: "quota exceeded"},
	}
	v2, lost, err := conversion.ConditionsToV1Beta2(v1, nil)
	fmt.Println(v2[0].Type, v2[0].Status, v2[0].Reason, err)
	back, _, err := conversion.ConditionsToV1Beta1(v2, lost)
	fmt.Printf("%s %s %q %v\n", back[0].Status, back[0].Severity, back[0].Reason, err)
	// Output:
	// Ready False NoReasonReported <nil>
	// False Error "quota exceeded" <nil>
}

// Example_stash keeps a v1beta1 field on the v1beta2 object and puts it back.
func Example_stash() {
	type spokeOnly struct {
		FailureReason string `json:"failureReason,omitempty"`
	}
	hub := &metav1.ObjectMeta{Name: "m-1", Namespace: "ns"}
	err := conversion.Stash(hub, spokeOnly{FailureReason: "CreateError"})
	fmt.Println(hub.Annotations[conversion.StashAnnotation], err)

	var restored spokeOnly
	found, err := conversion.Restore(hub, &restored)
	fmt.Println(restored.FailureReason, found, err, hub.Annotations == nil)
	// Output:
	// {"failureReason":"CreateError"} <nil>
	// CreateError true <nil> true
}

// Example_failureDomains converts an InfraCluster's v1beta1 failure domain map to the v1beta2 list.
func Example_failureDomains() {
	list, err := conversion.FailureDomainsToV1Beta2(map[string]conversion.V1Beta1FailureDomain{
		"zone-b": {},
		"zone-a": {ControlPlane: true},
	}, conversion.FailureDomainsStash{})
	for _, d := range list {
		fmt.Println(d.Name, *d.ControlPlane)
	}
	fmt.Println(err)
	// Output:
	// zone-a true
	// zone-b false
	// <nil>
}

// Example_providerID converts spec.providerID and the provisioned flag.
func Example_providerID() {
	fmt.Printf("%q\n", conversion.ProviderIDToV1Beta2(nil))
	fmt.Println(*conversion.ProviderIDToV1Beta1("mem://m-1"), conversion.ProviderIDToV1Beta1("") == nil)
	fmt.Println(*conversion.ReadyToProvisioned(true, nil), conversion.ReadyToProvisioned(false, nil) == nil)
	// Output:
	// ""
	// mem://m-1 true
	// true true
}

// FooMachine is an InfraMachine whose one API version serves both contracts.
type FooMachine struct {
	Status struct {
		Ready          bool                                `json:"ready,omitempty"`
		Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`
	} `json:"status,omitempty"`
}

// snippet:start dual-write

// IsProvisioned reports whether status.ready or status.initialization.provisioned is true.
func (m *FooMachine) IsProvisioned() bool {
	return conversion.IsDualProvisioned(m.Status.Ready, &m.Status.Initialization)
}

// SetProvisioned sets status.ready and status.initialization.provisioned.
func (m *FooMachine) SetProvisioned(v bool) {
	conversion.SetDualProvisioned(&m.Status.Ready, &m.Status.Initialization, v)
}

// snippet:end dual-write

// Example_dualWrite sets both provisioned flags of a status that serves both contracts.
func Example_dualWrite() {
	var m FooMachine
	m.SetProvisioned(true)
	fmt.Println(m.Status.Ready, *m.Status.Initialization.Provisioned, m.IsProvisioned())
	// Output:
	// true true true
}
