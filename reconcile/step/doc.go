// Package step is what one step of a reconcile returns and the environment its cloud calls run in: the step's
// Result, the errors that steer the next reconcile (Terminal, Throttled), and the Env the reconcilers put in
// the context (rate limiter and account, poll interval, events).
//
// It sits below package reconcile, which runs the steps, and package ensure, which makes the cloud calls of one
// resource, so that both share these types without importing each other. A service returns a step.Result:
//
//	func (s *Network) Reconcile(ctx context.Context, sc scope.ClusterScoper[*v1beta2.MyCluster]) (step.Result, error) {
//		if _, err := s.cloud.Get(ctx, "x"); err != nil {
//			return step.Result{}, fmt.Errorf("cannot read network: %w", err)
//		}
//		return step.Result{Done: true}, nil
//	}
package step
