package ambiguous

// A is embedded.
type A struct {
	ProviderID string `json:"providerID"`
}

// B is embedded.
type B struct {
	ProviderID string `json:"providerID"`
}

// Spec embeds two providerIDs at the same depth.
type Spec struct {
	A `json:",inline"`
	B `json:",inline"`
}

// Bad has an ambiguous spec.providerID.
// +kubebuilder:object:root=true
type Bad struct {
	Spec Spec `json:"spec"`
}
