package ensuretest

import "github.com/capkit/capkit/scope/scopetest"

// Tracker is an in-memory scope.ResourceTracker that models a crash or clusterctl move between reconciles.
//
// Deprecated: use scopetest.Tracker (the fakes of a scope live in scope/scopetest).
//
//go:fix inline
type Tracker = scopetest.Tracker

// NewTracker returns a Tracker with the persisted ownership key ownershipKey.
//
// Deprecated: use scopetest.NewTracker.
//
//go:fix inline
func NewTracker(ownershipKey string) *scopetest.Tracker { return scopetest.NewTracker(ownershipKey) }
