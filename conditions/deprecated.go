package conditions

// Deprecated forms of the Mark* writers, renamed to Set* in v0.2.0 (Cluster API's v1beta2 conditions have only
// Set*), kept for v0.2.x. "go fix ./..." (Go 1.26) rewrites their callers to the new names.

// MarkTrue sets the condition of type t to True.
//
// Deprecated: use SetTrue.
//
//go:fix inline
func MarkTrue(s Setter, t, reason, message string, opts ...Option) (bool, error) {
	return SetTrue(s, t, reason, message, opts...)
}

// MarkFalse sets the condition of type t to False.
//
// Deprecated: use SetFalse.
//
//go:fix inline
func MarkFalse(s Setter, t, reason, message string, opts ...Option) (bool, error) {
	return SetFalse(s, t, reason, message, opts...)
}

// MarkUnknown sets the condition of type t to Unknown.
//
// Deprecated: use SetUnknown.
//
//go:fix inline
func MarkUnknown(s Setter, t, reason, message string, opts ...Option) (bool, error) {
	return SetUnknown(s, t, reason, message, opts...)
}

// MarkPaused sets the Paused condition: True with ReasonPaused when paused, False with ReasonNotPaused otherwise.
//
// Deprecated: use SetPaused.
//
//go:fix inline
func MarkPaused(s Setter, paused bool, message string, opts ...Option) (bool, error) {
	return SetPaused(s, paused, message, opts...)
}
