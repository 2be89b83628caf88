package kubeobjects

import "github.com/capkit/capkit/conditions"

// ReasonNameTaken is the reason of the terminal error Create returns when an object of the name it must
// create exists and belongs to another owner. It moved to conditions before v0.1.0 and is back in v0.2.0,
// for code written against an earlier commit, for v0.2.x; "go fix ./..." (Go 1.26) rewrites its uses.
//
// Deprecated: use conditions.ReasonNameTaken.
//
//go:fix inline
const ReasonNameTaken = conditions.ReasonNameTaken
