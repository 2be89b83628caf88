package services

import (
	"context"
	"errors"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile/ensure"
)

// newInstances returns memcloud's instances as a ensure.Resource and a ensure.PendingReporter: Ensure
// waits for a booting instance, with ReasonInstancePending and the poll interval, and for one restarting with
// a new flavor, with ReasonInstanceUpdating. A stopped or failed instance is not in transition: the instance
// service decides what it means.
func newInstances(c *cloud.Cloud) ensure.Resource[cloud.InstanceSpec, *cloud.Instance] {
	f := kind[cloud.InstanceSpec](c, "instance", c.GetInstance, c.FindInstances, c.DeleteInstance, func(i *cloud.Instance) string { return i.ID })
	f.ValidateFunc = func(s cloud.InstanceSpec) error {
		var err error
		if len(s.UserData) == 0 {
			err = errors.New("userData must not be empty")
		}
		return errors.Join(required("name", s.Name), required("subnetID", s.SubnetID),
			required("image", s.Image), required("flavor", s.Flavor), err)
	}
	f.CreateFunc = func(ctx context.Context, s cloud.InstanceSpec, token string, tags map[string]string) (*cloud.Instance, error) {
		s.IdempotencyToken, s.Tags = token, tags
		return created(c.CreateInstance(ctx, s))
	}
	f.PendingFunc = func(obs *cloud.Instance) (reason, message string, pending bool) {
		switch {
		case obs.State != cloud.InstancePending:
			return "", "", false
		case obs.ResizingTo != "":
			return ReasonInstanceUpdating, instanceProgress(obs), true
		}
		return ReasonInstancePending, "instance " + obs.ID + " is booting", true
	}
	return ensure.NewResource(f)
}
