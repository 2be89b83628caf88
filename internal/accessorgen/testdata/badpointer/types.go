package badpointer

// Common is embedded through a pointer.
type Common struct {
	Resources map[string]string `json:"resources,omitempty"`
}

// BadStatus is the status.
type BadStatus struct {
	*Common `json:",inline"`
}

// Bad reaches status.resources through a pointer.
// +kubebuilder:object:root=true
type Bad struct {
	Status BadStatus `json:"status,omitempty"`
}
