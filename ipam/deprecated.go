package ipam

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/reconcile/step"
)

// Ensure creates any missing claim of owner (the InfraMachine) for cluster, one per request, and returns the
// addresses in request order once every claim has its address. Until then it returns, without error, the names
// of the claims it waits for (waiting, in request order) and no address. Its errors are those of Claim, not
// classified: an error wrapping ErrInvalid or ErrConflict, or the API server's.
//
// Deprecated: use Claimer.Claim, which returns the step's step.Result (Done, or not done with
// conditions.ReasonWaitingForIPAddresses, WaitingMessage's message and the poll interval) and makes addresses
// that cannot be used terminal. Ensure does the same work as Claim.
func (c *Claimer) Ensure(ctx context.Context, obj client.Object, cluster string, reqs []Request) (addrs []Address, waiting []string, err error) {
	return c.claim(ctx, obj, cluster, reqs)
}

// Release deletes the claims of owner and reports done once none is left; its errors are those of Unclaim, not
// classified: an error wrapping ErrInvalid, or the API server's.
//
// Deprecated: use Claimer.Unclaim, which returns the step's step.Result (Done, or not done with
// conditions.ReasonReleasingIPAddresses and the poll interval) and makes bad input terminal.
func (c *Claimer) Release(ctx context.Context, obj client.Object, reqs []Request) (done bool, err error) {
	res, err := c.Unclaim(ctx, obj, reqs)
	return res.Done, causeOf(err)
}

// causeOf returns the cause of a terminal error made by step.Terminal, and any other error as it is: the
// deprecated methods return the errors they returned before Claim and Unclaim classified them.
func causeOf(err error) error {
	var t *step.TerminalError
	if errors.As(err, &t) {
		if cause := errors.Unwrap(t.Err); cause != nil {
			return cause
		}
	}
	return err
}
