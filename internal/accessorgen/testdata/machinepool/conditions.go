package machinepool

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GetConditions returns a copy of status.conditions.
func (p *FooMachinePool) GetConditions() []metav1.Condition {
	return append([]metav1.Condition(nil), p.Status.Conditions...)
}
