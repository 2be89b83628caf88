package reconcile

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/reconcile/step"
)

// NewEnv returns the environment of a reconcile of obj as a reconciler with opts would set it up: only
// WithEventRecorder, WithRateLimiter and WithPollInterval matter. A test of a service puts it in the context
// with step.ContextWithEnv to see the events ensure emits or to give ensure a short poll interval.
func NewEnv(obj client.Object, opts ...Option) *step.Env {
	cfg := config{pollInterval: step.DefaultPollInterval}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg.env(obj)
}

// env returns the environment of a reconcile of obj under cfg.
func (c *config) env(obj client.Object) *step.Env {
	return step.NewEnv(obj, step.EnvOptions{Recorder: c.recorder, Limiters: c.limiters, PollInterval: c.pollInterval})
}
