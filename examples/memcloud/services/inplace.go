package services

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/inplace"
)

// InPlaceRetryAfter is how soon Cluster API calls UpdateMachine again while UpdateInstanceInPlace reports an
// update under way: a resize takes a few reads of the instance.
const InPlaceRetryAfter = time.Second

// UpdateInstanceInPlace makes the instance of mm (spec.providerID) match mm's flavor and tags
// (v1beta2.InPlaceFields), for Cluster API's UpdateMachine hook: Cluster API has written the new spec into
// mm and calls again until it is done, also after a restart of the provider. It reads the instance, changes
// the tags that differ (at once) and starts a resize when the flavor differs; both are idempotent, so a call
// that finds a resize to the same flavor under way starts nothing. It reports Done only when the instance runs
// with the desired flavor and tags; meanwhile, a Progress with InPlaceRetryAfter (or the cloud's hint when it
// throttled the call) and a message saying what the instance does. An instance that is gone or failed, or a
// MemMachine without a provider ID, is an error that names them: Cluster API shows it on the Machine and
// retries with backoff. It makes the same changes as the Instance step, which converges the instance to the
// same spec on its own.
func UpdateInstanceInPlace(ctx context.Context, cl *cloud.Cloud, mm *v1beta2.MemMachine) (inplace.Progress, error) {
	if cl == nil || mm == nil {
		return inplace.Progress{}, errors.New("cannot update a MemMachine in place: the cloud and the MemMachine must not be nil")
	}
	name := mm.Namespace + "/" + mm.Name
	if mm.Spec.ProviderID == "" {
		return inplace.Progress{}, fmt.Errorf("cannot update MemMachine %q in place: it has no instance yet (spec.providerID is empty)", name)
	}
	id, err := v1beta2.InstanceIDFromProviderID(mm.Spec.ProviderID)
	if err != nil {
		return inplace.Progress{}, fmt.Errorf("cannot update MemMachine %q in place: %w", name, err)
	}
	if err := wait(ctx); err != nil {
		return inplace.Progress{}, err
	}
	inst, err := cl.GetInstance(ctx, id)
	switch {
	case errors.Is(err, cloud.ErrNotFound):
		return inplace.Progress{}, fmt.Errorf("cannot update MemMachine %q in place: its instance %q is gone", name, id)
	case err != nil:
		return throttled(fmt.Errorf("cannot update MemMachine %q in place: %w", name, err))
	case inst.State == cloud.InstanceFailed:
		return inplace.Progress{}, fmt.Errorf("cannot update MemMachine %q in place: its instance %q failed", name, id)
	}
	spec := machineSpec(mm)
	inst, matched, err := converge(ctx, cl, inst, string(spec.Flavor), userTags(spec.Tags))
	if err != nil {
		return throttled(fmt.Errorf("cannot update MemMachine %q in place: %w", name, err))
	}
	if matched && inst.State == cloud.InstanceRunning {
		return inplace.Progress{Done: true, Message: fmt.Sprintf("instance %s runs with flavor %s", inst.ID, inst.Flavor)}, nil
	}
	return inplace.Progress{RetryAfter: InPlaceRetryAfter, Message: instanceProgress(inst)}, nil
}

// throttled turns a call the cloud throttled into a Progress that asks Cluster API to call again after the
// cloud's hint; any other error is returned as it is.
func throttled(err error) (inplace.Progress, error) {
	if wait, ok := cloud.RetryAfter(err); ok {
		return inplace.Progress{RetryAfter: max(wait, InPlaceRetryAfter), Message: "memcloud throttled the update; calling again"}, nil
	}
	return inplace.Progress{}, err
}

// converge changes inst, running or stopped, to flavor and tags (the user tags: userTags): it changes the tags
// that differ and starts a resize when the flavor differs and no resize is under way. It returns the instance
// as the cloud last reported it and whether it has flavor and tags now (a resized running instance has not:
// it restarts first). An instance that matches costs no call.
func converge(ctx context.Context, cl *cloud.Cloud, inst *cloud.Instance, flavor string, tags map[string]string) (*cloud.Instance, bool, error) {
	if set, remove := tagChange(inst.Tags, tags); len(set) > 0 || len(remove) > 0 {
		if err := wait(ctx); err != nil {
			return inst, false, err
		}
		got, err := cl.TagInstance(ctx, inst.ID, set, remove)
		if err != nil {
			return inst, false, err
		}
		inst = got
	}
	resizable := inst.State == cloud.InstanceRunning || inst.State == cloud.InstanceStopped
	if inst.Flavor != flavor && inst.ResizingTo == "" && resizable {
		if err := wait(ctx); err != nil {
			return inst, false, err
		}
		got, err := cl.ResizeInstance(ctx, inst.ID, flavor)
		if err != nil {
			return inst, false, err
		}
		inst = got
	}
	return inst, inst.Flavor == flavor && inst.ResizingTo == "", nil
}

// userTags returns the tags of spec.tags that memcloud puts on the instance: all but the keys memcloud and
// capkit reserve (the webhook refuses them; a MemMachine written without it cannot override memcloud's own).
func userTags(tags map[string]string) map[string]string {
	out := maps.Clone(tags)
	maps.DeleteFunc(out, func(k, _ string) bool { return v1beta2.IsReservedTagKey(k) })
	return out
}

// tagChange returns the change that gives an instance with tags have the user tags want: the tags to set, and
// the user tags to remove (sorted). memcloud's and capkit's own tags are left alone; any other tag that want
// has not is removed, also one set on the instance out of band.
func tagChange(have, want map[string]string) (set map[string]string, remove []string) {
	for k, v := range want {
		if old, ok := have[k]; !ok || old != v {
			if set == nil {
				set = map[string]string{}
			}
			set[k] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(have)) {
		if _, ok := want[k]; !ok && !v1beta2.IsReservedTagKey(k) {
			remove = append(remove, k)
		}
	}
	return set, remove
}

// instanceProgress says what an instance that does not match its spec yet is doing.
func instanceProgress(inst *cloud.Instance) string {
	if inst.ResizingTo != "" {
		return fmt.Sprintf("instance %s is being resized from flavor %s to %s", inst.ID, inst.Flavor, inst.ResizingTo)
	}
	return fmt.Sprintf("instance %s is %s with flavor %s", inst.ID, inst.State, inst.Flavor)
}
