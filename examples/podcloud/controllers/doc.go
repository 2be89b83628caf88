// Package controllers wires podcloud's services into capkit's generic reconcilers. It has the PodCluster reconciler
// (steps ServiceAccount, Endpoint, FailureDomains) and the PodMachine reconciler (steps BootstrapSecret, Pod), capkit's
// capacity.Reconciler (package reconcile/capacity) for PodMachineTemplates (status.capacity for the cluster
// autoscaler's scale from zero, from services.TemplateCapacity), and SetupWithManager, which registers the three with a
// controller-runtime manager. The target cluster, where the Pods run, is reached through a client given with
// WithTarget; by default it is the management cluster, through the manager's own client.
package controllers
