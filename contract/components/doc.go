// Package components forwards to package github.com/capkit/capkit/release/components, the builder of a provider's
// infrastructure-components.yaml, which lived here before v0.2.0. Every exported name is the one of
// release/components, kept for the v0.2.x releases; go fix ./... (Go 1.26) rewrites the uses of its functions and of
// Config, while ErrInvalidConfig and ErrUsage (variables) are renamed by hand.
//
// Deprecated: use github.com/capkit/capkit/release/components.
package components
