package reconcile

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Event types, as Kubernetes names them.
const (
	// EventNormal is the type of an event about an expected change.
	EventNormal = "Normal"
	// EventWarning is the type of an event that asks for attention.
	EventWarning = "Warning"
)

// eventsKey is the context key of the event sink of the object being reconciled.
type eventsKey struct{}

// eventSink records events about one object.
type eventSink struct {
	recorder EventRecorder
	obj      client.Object
}

// ContextWithEvents returns ctx carrying rec and the object being reconciled, for Eventf. The reconcilers
// call it for every reconcile; a test of a service calls it to see the events Ensure emits.
func ContextWithEvents(ctx context.Context, rec EventRecorder, obj client.Object) context.Context {
	if rec == nil {
		return ctx
	}
	return context.WithValue(ctx, eventsKey{}, eventSink{recorder: rec, obj: obj})
}

// Eventf records an event about the object being reconciled, through the reconciler's recorder
// (WithEventRecorder): Ensure announces creates, adoptions, updates and drift with it, and a service may too.
// Without a recorder, or outside a reconcile, it does nothing. reason is CamelCase; never put secrets in the
// note.
func Eventf(ctx context.Context, eventType, reason, note string, args ...any) {
	if sink, ok := ctx.Value(eventsKey{}).(eventSink); ok {
		sink.recorder.Eventf(sink.obj, nil, eventType, reason, "Reconcile", note, args...)
	}
}
