package conversion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// maxOldObjectSize bounds the old object of an admission request that KeepStatus decodes, in bytes: the API
// server takes no request body larger than 3 MiB.
const maxOldObjectSize = 3 << 20

// KeepStatus makes a create or an update of obj's main resource leave its status as the status subresource
// wants it: a create gets no status and no StatusStashAnnotation, an update gets back the stored status and
// StatusStashAnnotation. The hub's defaulting webhook calls it first, with the context controller-runtime
// gives a Defaulter (it carries the admission request); it does nothing for a write to a subresource.
//
// Why: a write to the main resource may set any annotation, and the API server resets the status of such a
// write in the version of the request, before the conversion to the storage version reads the status stash.
// An admission webhook registered for the hub version is called with the object already converted, and knows
// the subresource, so it can put back what the stash would have changed.
func KeepStatus(ctx context.Context, obj client.Object) error {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return errors.New("cannot keep the status: nil object")
	}
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return fmt.Errorf("cannot keep the status of %q: %w", objectName(obj), err)
	}
	if req.SubResource != "" {
		return nil
	}
	var old struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Status json.RawMessage `json:"status"`
	}
	switch req.Operation {
	case admissionv1.Create:
	case admissionv1.Update:
		if len(req.OldObject.Raw) > maxOldObjectSize {
			return fmt.Errorf("cannot keep the status of %q: old object of %d bytes, more than %d", objectName(obj), len(req.OldObject.Raw), maxOldObjectSize)
		}
		if err := json.Unmarshal(req.OldObject.Raw, &old); err != nil {
			return fmt.Errorf("cannot keep the status of %q: cannot read the old object: %w", objectName(obj), err)
		}
	default:
		return nil
	}
	if err := setStatus(obj, old.Status); err != nil {
		return fmt.Errorf("cannot keep the status of %q: %w", objectName(obj), err)
	}
	if v, ok := old.Metadata.Annotations[StatusStashAnnotation]; ok {
		setAnnotation(obj, StatusStashAnnotation, v)
	} else {
		removeAnnotation(obj, StatusStashAnnotation)
	}
	return nil
}

// setStatus replaces obj's status with the JSON status (none when nil or null), through obj's JSON.
func setStatus(obj client.Object, status json.RawMessage) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	if len(status) == 0 || string(status) == "null" {
		delete(fields, "status")
	} else {
		fields["status"] = status
	}
	if data, err = json.Marshal(fields); err != nil {
		return err
	}
	fresh := reflect.New(reflect.TypeOf(obj).Elem())
	if err := json.Unmarshal(data, fresh.Interface()); err != nil {
		return fmt.Errorf("cannot decode status %q: %w", truncate(status), err)
	}
	reflect.ValueOf(obj).Elem().Set(fresh.Elem())
	return nil
}

// truncate returns the first 64 bytes of b, for an error.
func truncate(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}
