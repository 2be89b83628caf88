// Package controllers wires the quux provider's services into capkit's generic reconcilers
// (reconcile.NewClusterReconcilerFor, reconcile.NewMachineReconcilerFor): fetch, owner wait, pause, the finalizer
// persisted before any cloud call, one condition per step, reverse-order delete, error classes and events
// come from capkit; the provider gives the steps.
//
// This package also holds the RBAC markers of the controller manager (rbac.go), from which controller-gen
// writes config/rbac/role.yaml.
package controllers
