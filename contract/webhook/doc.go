// Package webhook forwards to package github.com/capkit/capkit/contract/admission, the admission webhooks of a
// provider's API types, which lived here before v0.2.0. Every exported name is the one of contract/admission (Webhook
// and Registrar are aliases), kept for the v0.2.x releases; go fix ./... (Go 1.26) rewrites their uses.
//
// Deprecated: use github.com/capkit/capkit/contract/admission.
package webhook
