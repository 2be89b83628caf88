// Package step is what one step of a reconcile returns and the environment its cloud calls run in: the step's
// Result, the errors that steer the next reconcile (Terminal, Throttled), and the Env the reconcilers put in
// the context (rate limiter and account, poll interval, events).
//
// It sits below package reconcile, which runs the steps, and package ensure, which makes the cloud calls of one
// resource, so that both share these types without importing each other. A service returns a step.Result
// (step.Result{Done: true} when its part is in place) and marks errors with Terminal and Throttled, as
// ExampleTerminal shows; reconcile.Classify says what the reconciler then does.
package step
