package v1beta2

import (
	"errors"
	"fmt"
	"strings"
)

// ProviderIDPrefix starts every podcloud provider ID: "podcloud://" followed by the Pod's ID,
// "namespace/name/uid".
const ProviderIDPrefix = "podcloud://"

// ErrInvalidProviderID is wrapped by the errors of PodIDFromProviderID.
var ErrInvalidProviderID = errors.New("invalid podcloud provider ID")

// ProviderID returns the provider ID of the Pod with ID podID ("namespace/name/uid").
func ProviderID(podID string) string { return ProviderIDPrefix + podID }

// PodIDFromProviderID returns the Pod ID ("namespace/name/uid") of a podcloud provider ID.
func PodIDFromProviderID(providerID string) (string, error) {
	id, ok := strings.CutPrefix(providerID, ProviderIDPrefix)
	if !ok {
		return "", fmt.Errorf("cannot parse provider ID %q: want prefix %q: %w", providerID, ProviderIDPrefix, ErrInvalidProviderID)
	}
	parts := strings.Split(id, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" || strings.ContainsAny(id, " \t\r\n") {
		return "", fmt.Errorf("cannot parse provider ID %q: want \"%sNAMESPACE/NAME/UID\": %w", providerID, ProviderIDPrefix, ErrInvalidProviderID)
	}
	return id, nil
}
