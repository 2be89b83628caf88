package services

import (
	"context"
	"errors"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile"
)

// instances are memcloud's instances as a reconcile.Resource and a reconcile.PendingReporter: Ensure waits
// for a booting instance, with ReasonInstancePending and the poll interval.
type instances struct {
	*cloudResource[cloud.InstanceSpec, cloud.Instance]
}

var _ reconcile.PendingReporter[*cloud.Instance] = instances{}

func newInstances(c *cloud.Cloud) instances {
	return instances{&cloudResource[cloud.InstanceSpec, cloud.Instance]{
		kind: "instance",
		get:  c.GetInstance, find: c.FindInstances, del: c.DeleteInstance,
		id: func(i *cloud.Instance) string { return i.ID },
		validate: func(s cloud.InstanceSpec) error {
			var err error
			if len(s.UserData) == 0 {
				err = errors.New("userData must not be empty")
			}
			return errors.Join(required("name", s.Name), required("subnetID", s.SubnetID),
				required("image", s.Image), required("flavor", s.Flavor), err)
		},
		create: func(ctx context.Context, s cloud.InstanceSpec, token string, tags map[string]string) (*cloud.Instance, error) {
			s.IdempotencyToken, s.Tags = token, tags
			return c.CreateInstance(ctx, s)
		},
	}}
}

// Pending reports a booting instance. A stopped or failed instance is not in transition: the instance
// service decides what it means.
func (instances) Pending(obs *cloud.Instance) (reason, message string, pending bool) {
	if obs.State != cloud.InstancePending {
		return "", "", false
	}
	return ReasonInstancePending, "instance " + obs.ID + " is booting", true
}
