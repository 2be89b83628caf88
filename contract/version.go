package contract

import (
	"errors"
	"fmt"
)

// Version is a Cluster API provider contract version, e.g. "v1beta2".
type Version string

const (
	// V1Beta1 is the contract of Cluster API v1.0 to v1.10: readiness in status.ready, failure domains as a map,
	// new-style conditions under status.v1beta2.conditions.
	V1Beta1 Version = "v1beta1"
	// V1Beta2 is the contract of Cluster API v1.11 and later: readiness in status.initialization.*, failure
	// domains as a list, metav1.Conditions under status.conditions.
	V1Beta2 Version = "v1beta2"
)

// Versions lists the supported contract versions, newest first.
var Versions = []Version{V1Beta2, V1Beta1}

// ErrUnknownVersion is returned for a contract version capkit does not support.
var ErrUnknownVersion = errors.New("unknown contract version")

// parseVersion returns the Version named by s, or ErrUnknownVersion.
func parseVersion(s string) (Version, error) {
	v := Version(s)
	if !v.Valid() {
		return "", fmt.Errorf("cannot parse contract version %q: %w", s, ErrUnknownVersion)
	}
	return v, nil
}

// Valid reports whether v is a supported contract version.
func (v Version) Valid() bool { return v == V1Beta1 || v == V1Beta2 }

// String returns the version as written in CRD labels.
func (v Version) String() string { return string(v) }

// pick returns a for v1beta1 and b for every later version.
func pick[T any](v Version, v1beta1, v1beta2 T) T {
	if v == V1Beta1 {
		return v1beta1
	}
	return v1beta2
}
