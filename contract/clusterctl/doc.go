// Package clusterctl forwards to package github.com/capkit/capkit/release/clusterctl, the checks of a provider's
// clusterctl release files, which lived here before v0.2.0. Every exported name is the one of release/clusterctl
// (types are aliases, so values pass between the two), kept for the v0.2.x releases; go fix ./... (Go 1.26) rewrites
// the uses of its functions, constants and types, while ErrImageReference, ErrMalformed and ErrTooLarge (variables)
// are renamed by hand.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.
package clusterctl
