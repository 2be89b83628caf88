// Package capacity keeps the status.capacity and status.nodeInfo of a provider's InfraMachineTemplates up to date. Its
// controller serves Cluster API's opt-in autoscaling from zero.
//
// The cluster autoscaler scales a MachineDeployment up from zero replicas only when it knows what a machine
// would offer: it reads the capacity (cpu, memory, pods, GPUs) and node info (architecture, operating system)
// from the status of the InfraMachineTemplate. The provider's template type embeds
// contract.MachineTemplateCapacity as its status and implements contract.CapacityAccessor; the provider
// gives a Func that sizes a template (from its flavor, say), and the Reconciler writes the result, only
// when it changes:
//
//	r, err := capacity.NewReconcilerFor(mgr.GetClient(), &v1beta2.MemMachineTemplate{},
//		func(t *v1beta2.MemMachineTemplate) (contract.MachineTemplateCapacity, error) {
//			return sizeOf(t.Spec.Template.Spec.Flavor)
//		})
//	if err != nil {
//		return err
//	}
//	return r.SetupWithManager(mgr, "memmachinetemplate-capacity")
//
// That is memcloud's template type, in setup_example_test.go; ExampleNewReconcilerFor runs a reconcile.
//
// The template CRD needs +kubebuilder:subresource:status, and the manager's role the patch verb on
// <templates>/status.
package capacity
