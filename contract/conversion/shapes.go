package conversion

import "github.com/capkit/capkit/contract"

// ProviderIDToV1Beta2 returns the v1beta2 spec.providerID (a string) of a v1beta1 one (a *string): "" for nil.
// A pointer to "" becomes "" too, and comes back as nil: Cluster API reads both as unset.
func ProviderIDToV1Beta2(id *string) string {
	if id == nil {
		return ""
	}
	return *id
}

// ProviderIDToV1Beta1 returns the v1beta1 spec.providerID (a *string) of a v1beta2 one: nil for "".
func ProviderIDToV1Beta1(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// ReadyToProvisioned returns the v1beta2 status.initialization.provisioned of a v1beta1 status.ready: true for
// true and unset (nil) for false, unless restored, the value ProvisionedToReady gave to stash, is false and
// ready too, in which case it is an explicit false again.
func ReadyToProvisioned(ready bool, restored *bool) *bool {
	switch {
	case ready:
		return new(true)
	case restored != nil && !*restored:
		return new(false)
	default:
		return nil
	}
}

// ProvisionedToReady returns the v1beta1 status.ready of a v1beta2 status.initialization.provisioned (false
// when unset), and what to stash for ReadyToProvisioned: provisioned itself when it is an explicit false, which
// status.ready cannot tell from unset, nil otherwise.
func ProvisionedToReady(provisioned *bool) (ready bool, stash *bool) {
	if provisioned == nil {
		return false, nil
	}
	if !*provisioned {
		return false, new(false)
	}
	return true, nil
}

// SetDualProvisioned writes v to both status.ready (*ready) and status.initialization.provisioned
// (initialization), for a status that serves the v1beta1 and v1beta2 contracts from one API version. ready
// and initialization must not be nil. A provider calls it from its own SetProvisioned (see
// Example_dualWrite), which `capkit generate accessors` then does not generate.
func SetDualProvisioned(ready *bool, initialization contract.ProvisionedAccessor, v bool) {
	*ready = v
	initialization.SetProvisioned(v)
}

// IsDualProvisioned reports whether either status.ready or status.initialization.provisioned is true: an
// object written by a release that set only status.ready is provisioned too. initialization must not be nil.
func IsDualProvisioned(ready bool, initialization contract.ProvisionedAccessor) bool {
	return ready || initialization.IsProvisioned()
}
