package badinit

// BadStatus is the status.
type BadStatus struct {
	Initialization string `json:"initialization,omitempty"`
}

// Bad has a status.initialization that is not a contract.*Initialization.
// +kubebuilder:object:root=true
type Bad struct {
	Status BadStatus `json:"status,omitempty"`
}
