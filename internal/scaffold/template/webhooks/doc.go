// Package webhooks holds the defaulting and validating admission webhooks of the quux provider's kinds,
// built on capkit's contract/admission: the provider gives the functions that default and check a spec and the
// rules of an update (immutable fields); capkit adds Cluster API's rules (templates cannot change after
// creation, except in the topology controller's dry-runs). The +kubebuilder:webhook markers in setup.go
// generate config/webhook/manifests.yaml.
package webhooks
