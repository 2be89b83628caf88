package step

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/capkit/capkit/redact"
)

// Event types, as Kubernetes names them.
const (
	// EventNormal is the type of an event about an expected change.
	EventNormal = "Normal"
	// EventWarning is the type of an event that asks for attention.
	EventWarning = "Warning"
)

// EventRecorder records events; the manager's GetEventRecorder(name) (k8s.io/client-go/tools/events)
// implements it.
type EventRecorder interface {
	// Eventf records an event about regarding; see k8s.io/client-go/tools/events.EventRecorder.
	Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// Eventf records an event about the object being reconciled through the reconciler's recorder
// (reconcile.WithEventRecorder; SetupWithManager takes the manager's when none was given): ensure announces
// adoptions, updates and drift with it, and a service may too. reason is CamelCase. The note is masked by the
// reconcile's Redactor; still, never put secrets in it. An event has always somewhere to go: without a
// recorder, or outside a reconcile (no Env in ctx), it is logged through the logger of ctx, at info level
// with its type, reason and note.
func Eventf(ctx context.Context, eventType, reason, note string, args ...any) {
	if len(args) > 0 {
		note = fmt.Sprintf(note, args...)
	}
	Record(ctx, eventType, reason, "Reconcile", note)
}

// Record records an event as Eventf does, with its action (what was done, e.g. "Reconcile", "Delete") and a
// note that is not a format.
func Record(ctx context.Context, eventType, reason, action, note string) {
	note = redact.FromContext(ctx).String(note)
	env := EnvFrom(ctx)
	if env == nil || env.recorder == nil || env.object == nil {
		log.FromContext(ctx).Info("event", "type", eventType, "reason", reason, "action", action, "note", note)
		return
	}
	env.recorder.Eventf(env.object, nil, eventType, reason, action, "%s", note)
}
