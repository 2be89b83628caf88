// Package controllers wires podcloud's services into capkit's generic reconcilers: the PodCluster reconciler
// (steps ServiceAccount, Endpoint, FailureDomains) and the PodMachine reconciler (steps BootstrapSecret, Pod),
// and SetupWithManager, which registers both with a controller-runtime manager. The target cluster, where the
// Pods run, is reached through a client given with WithTarget; by default it is the management cluster, through
// the manager's own client.
package controllers
