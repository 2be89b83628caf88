package reconcile

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/redact"
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
	redactor *redact.Redactor
}

// ContextWithEvents returns ctx carrying rec and the object being reconciled, for Eventf. The reconcilers
// call it for every reconcile; a test of a service calls it to see the events Ensure emits. Every event's note
// is masked by the Redactor of ctx (redact.FromContext), when there is one, before it reaches rec.
func ContextWithEvents(ctx context.Context, rec EventRecorder, obj client.Object) context.Context {
	if rec == nil {
		return ctx
	}
	return context.WithValue(ctx, eventsKey{}, eventSink{recorder: rec, obj: obj, redactor: redact.FromContext(ctx)})
}

// Eventf records an event about the object being reconciled, through the reconciler's recorder
// (WithEventRecorder): Ensure announces creates, adoptions, updates and drift with it, and a service may too.
// Without a recorder, or outside a reconcile, it does nothing. reason is CamelCase. The note is masked by
// the reconcile's Redactor; still, never put secrets in it.
func Eventf(ctx context.Context, eventType, reason, note string, args ...any) {
	eventf(ctx, eventType, reason, "Reconcile", note, args...)
}

func eventf(ctx context.Context, eventType, reason, action, note string, args ...any) {
	if sink, ok := ctx.Value(eventsKey{}).(eventSink); ok {
		if len(args) > 0 {
			note = fmt.Sprintf(note, args...)
		}
		sink.recorder.Eventf(sink.obj, nil, eventType, reason, action, "%s", sink.redactor.String(note))
	}
}
