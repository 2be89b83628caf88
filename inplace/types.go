package inplace

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// The wire types below have the JSON of sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1 (Cluster API
// v1.14), which this module does not import. Objects are unstructured: the Machine and MachineSet as Cluster
// API marshals them (cluster.x-k8s.io/v1beta2, metadata and spec only), the provider's objects as stored.

// APIVersion is the group and version of the hooks served here.
const APIVersion = "hooks.runtime.cluster.x-k8s.io/v1alpha1"

// ResponseStatus is the outcome of a hook call. Cluster API treats anything but Success as an error.
type ResponseStatus string

const (
	// ResponseStatusSuccess means the hook answered; for the CanUpdate hooks also when it declines.
	ResponseStatusSuccess ResponseStatus = "Success"
	// ResponseStatusFailure means the hook failed; Cluster API retries and reports the message.
	ResponseStatusFailure ResponseStatus = "Failure"
)

// PatchType is the format of a Patch.
type PatchType string

const (
	// JSONPatchType is an RFC 6902 JSON patch, the only type this package writes.
	JSONPatchType PatchType = "JSONPatch"
	// JSONMergePatchType is an RFC 7386 JSON merge patch.
	JSONMergePatchType PatchType = "JSONMergePatch"
)

// Patch is a patch of a whole object (paths start at the root, e.g. /spec/template/spec/flavor). Patch is
// the patch document itself; as a []byte it is base64 on the wire, as in Cluster API's type.
type Patch struct {
	PatchType PatchType `json:"patchType,omitempty"`
	Patch     []byte    `json:"patch,omitempty"`
}

// IsDefined reports whether the patch is set, by Cluster API's rule: a type or a document.
func (p Patch) IsDefined() bool { return p.PatchType != "" || len(p.Patch) > 0 }

// CanUpdateMachineSetRequest is the request of the CanUpdateMachineSet hook, sent by the MachineDeployment
// controller for an old and a new MachineSet.
type CanUpdateMachineSetRequest struct {
	metav1.TypeMeta `json:",inline"`
	// Settings are the ExtensionConfig's spec.settings.
	Settings map[string]string `json:"settings,omitempty"`
	Current  MachineSetObjects `json:"current,omitzero"`
	Desired  MachineSetObjects `json:"desired,omitzero"`
}

// MachineSetObjects are a MachineSet and its templates. BootstrapConfigTemplate is nil for a
// MachineSet without bootstrap.configRef.
type MachineSetObjects struct {
	MachineSet                    *unstructured.Unstructured `json:"machineSet,omitempty"`
	InfrastructureMachineTemplate *unstructured.Unstructured `json:"infrastructureMachineTemplate,omitempty"`
	BootstrapConfigTemplate       *unstructured.Unstructured `json:"bootstrapConfigTemplate,omitempty"`
}

// UnmarshalJSON decodes the objects with errors that name the field and never quote the object.
func (o *MachineSetObjects) UnmarshalJSON(b []byte) error {
	var raw struct {
		MachineSet                    json.RawMessage `json:"machineSet"`
		InfrastructureMachineTemplate json.RawMessage `json:"infrastructureMachineTemplate"`
		BootstrapConfigTemplate       json.RawMessage `json:"bootstrapConfigTemplate"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	var err error
	if o.MachineSet, err = decodeObject("machineSet", raw.MachineSet); err != nil {
		return err
	}
	if o.InfrastructureMachineTemplate, err = decodeObject("infrastructureMachineTemplate", raw.InfrastructureMachineTemplate); err != nil {
		return err
	}
	o.BootstrapConfigTemplate, err = decodeObject("bootstrapConfigTemplate", raw.BootstrapConfigTemplate)
	return err
}

// CanUpdateMachineSetResponse is the answer to CanUpdateMachineSet. Success without patches declines: Cluster
// API then rolls out new Machines. Success with patches says which changes the provider applies in place.
type CanUpdateMachineSetResponse struct {
	metav1.TypeMeta                    `json:",inline"`
	Status                             ResponseStatus `json:"status"`
	Message                            string         `json:"message,omitempty"`
	MachineSetPatch                    Patch          `json:"machineSetPatch,omitzero"`
	InfrastructureMachineTemplatePatch Patch          `json:"infrastructureMachineTemplatePatch,omitzero"`
	BootstrapConfigTemplatePatch       Patch          `json:"bootstrapConfigTemplatePatch,omitzero"`
}

// CanUpdateMachineRequest is the request of the CanUpdateMachine hook, sent by the KubeadmControlPlane
// controller for one Machine.
type CanUpdateMachineRequest struct {
	metav1.TypeMeta `json:",inline"`
	// Settings are the ExtensionConfig's spec.settings.
	Settings map[string]string `json:"settings,omitempty"`
	Current  MachineObjects    `json:"current,omitzero"`
	Desired  MachineObjects    `json:"desired,omitzero"`
}

// MachineObjects are a Machine, its InfraMachine and its bootstrap config (nil when the Machine has none).
type MachineObjects struct {
	Machine               *unstructured.Unstructured `json:"machine,omitempty"`
	InfrastructureMachine *unstructured.Unstructured `json:"infrastructureMachine,omitempty"`
	BootstrapConfig       *unstructured.Unstructured `json:"bootstrapConfig,omitempty"`
}

// UnmarshalJSON decodes the objects with errors that name the field and never quote the object.
func (o *MachineObjects) UnmarshalJSON(b []byte) error {
	var raw struct {
		Machine               json.RawMessage `json:"machine"`
		InfrastructureMachine json.RawMessage `json:"infrastructureMachine"`
		BootstrapConfig       json.RawMessage `json:"bootstrapConfig"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	var err error
	if o.Machine, err = decodeObject("machine", raw.Machine); err != nil {
		return err
	}
	if o.InfrastructureMachine, err = decodeObject("infrastructureMachine", raw.InfrastructureMachine); err != nil {
		return err
	}
	o.BootstrapConfig, err = decodeObject("bootstrapConfig", raw.BootstrapConfig)
	return err
}

// CanUpdateMachineResponse is the answer to CanUpdateMachine, with patches of the objects' spec.
type CanUpdateMachineResponse struct {
	metav1.TypeMeta            `json:",inline"`
	Status                     ResponseStatus `json:"status"`
	Message                    string         `json:"message,omitempty"`
	MachinePatch               Patch          `json:"machinePatch,omitzero"`
	InfrastructureMachinePatch Patch          `json:"infrastructureMachinePatch,omitzero"`
	BootstrapConfigPatch       Patch          `json:"bootstrapConfigPatch,omitzero"`
}

// UpdateMachineRequest is the request of the UpdateMachine hook. There is no current state: Cluster API has
// already written the new spec into the objects.
type UpdateMachineRequest struct {
	metav1.TypeMeta `json:",inline"`
	// Settings are the ExtensionConfig's spec.settings.
	Settings map[string]string `json:"settings,omitempty"`
	Desired  MachineObjects    `json:"desired,omitzero"`
}

// UpdateMachineResponse is the answer to UpdateMachine: Success with RetryAfterSeconds 0 when the update is
// done, Success with RetryAfterSeconds > 0 while it is in progress, Failure when it failed.
type UpdateMachineResponse struct {
	metav1.TypeMeta   `json:",inline"`
	Status            ResponseStatus `json:"status"`
	Message           string         `json:"message,omitempty"`
	RetryAfterSeconds int32          `json:"retryAfterSeconds"`
}

// DiscoveryResponse is the answer to the Discovery hook.
type DiscoveryResponse struct {
	metav1.TypeMeta `json:",inline"`
	Status          ResponseStatus     `json:"status"`
	Message         string             `json:"message,omitempty"`
	Handlers        []ExtensionHandler `json:"handlers,omitempty"`
}

// ExtensionHandler is one handler announced by discovery.
type ExtensionHandler struct {
	Name           string           `json:"name"`
	RequestHook    GroupVersionHook `json:"requestHook"`
	TimeoutSeconds *int32           `json:"timeoutSeconds,omitempty"`
	FailurePolicy  *FailurePolicy   `json:"failurePolicy,omitempty"`
}

// GroupVersionHook names the hook a handler serves, e.g. {APIVersion, "CanUpdateMachineSet"}.
type GroupVersionHook struct {
	APIVersion string `json:"apiVersion"`
	Hook       string `json:"hook"`
}

// FailurePolicy says what Cluster API does when it cannot call a handler or read its answer (not when the
// handler answers Failure: that is always an error).
type FailurePolicy string

const (
	// FailurePolicyFail makes such an error a reconcile error, retried with backoff.
	FailurePolicyFail FailurePolicy = "Fail"
	// FailurePolicyIgnore turns such an error into an empty Success answer.
	FailurePolicyIgnore FailurePolicy = "Ignore"
)

// decodeObject decodes one object with Kubernetes' number rules (int64 where the number is integral, else
// float64); JSON null or an absent field give nil. Unlike Unstructured.UnmarshalJSON it does not require a
// kind, and its errors name the field and never quote the object.
func decodeObject(field string, raw json.RawMessage) (*unstructured.Unstructured, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := utiljson.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("cannot decode %s: %w", field, err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}
