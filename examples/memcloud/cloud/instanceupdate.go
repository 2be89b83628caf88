package cloud

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ResizeInstance changes the flavor of an instance, one of the cloud's flavors (WithFlavors), and
// returns the instance as it is afterwards. A running instance is stopped and started again: it is
// InstancePending, with ResizingTo set to the new flavor, for as many GetInstance calls as a new
// instance (WithPendingGets), then InstanceRunning with the new Flavor. A stopped instance takes the
// new flavor at once and stays stopped.
//
// Resizing to the flavor the instance has, or is being resized to, changes nothing and succeeds
// (the call is counted, the update is not: see Stats.Updated), whatever the instance's state. Any
// other resize of an instance that is neither running nor stopped (booting, failed, or being
// resized to another flavor) fails with ErrIncorrectState and changes nothing; an unknown flavor
// fails with ErrInvalidParameter naming it; an instance that is gone with ErrNotFound. Like every
// mutating call it is subject to fault injection, the lost-response case included: retrying with
// the same flavor is safe.
func (c *Cloud) ResizeInstance(ctx context.Context, id, flavor string) (*Instance, error) {
	inst, err := c.resize(ctx, id, flavor)
	if err != nil {
		return nil, fmt.Errorf("cannot resize instance %q to flavor %q: %w", id, flavor, err)
	}
	return inst, nil
}

func (c *Cloud) resize(ctx context.Context, id, flavor string) (*Instance, error) {
	valid := func() error {
		if !slices.Contains(c.flavors, flavor) {
			return c.unknownFlavor(flavor)
		}
		return nil
	}
	return onRecord(ctx, c, VerbResize.On(KindInstance), "id", id, valid, func(_ call, rec *record) (*Instance, error) {
		inst := rec.obj.(*Instance)
		switch {
		case inst.ResizingTo == flavor, inst.ResizingTo == "" && inst.Flavor == flavor:
			// Nothing to do: a retry, or a resize that is under way.
		case inst.ResizingTo != "":
			return nil, fmt.Errorf("%w: instance %q is being resized to flavor %q", ErrIncorrectState, id, inst.ResizingTo)
		case inst.State == InstanceStopped:
			inst.Flavor = flavor
			c.stats.Updated[KindInstance]++
		case inst.State == InstanceRunning:
			inst.State, inst.ResizingTo, rec.pendingGets = InstancePending, flavor, c.pendingGets
			c.stats.Updated[KindInstance]++
		default:
			return nil, fmt.Errorf("%w: instance %q is %s: only a running or stopped instance can be resized", ErrIncorrectState, id, inst.State)
		}
		return as[Instance](c.objectLocked(rec), nil)
	})
}

// unknownFlavor is the error of a flavor that is not one of the cloud's.
func (c *Cloud) unknownFlavor(flavor string) error {
	return invalid("flavor", flavor, fmt.Sprintf("is not a flavor of this cloud (%s)", strings.Join(c.flavors, ", ")))
}

// TagInstance changes the tags of an instance in place, at once and in any state, and returns the
// instance as it is afterwards: the tags of set are added or take their new value, the keys of
// remove are deleted (a key the instance does not have is ignored). Set is validated as the tags
// of a create, a key cannot be both set and removed, TagInstanceGroup can be neither (the cloud
// sets it), and the instance may have at most 50 tags afterwards; otherwise the call fails with
// ErrInvalidParameter and changes nothing. A call that leaves the tags as they are changes nothing
// (the call is counted, the update is not: see Stats.Updated). It fails with ErrNotFound when the
// instance is gone. Like every mutating call it is subject to fault injection, the lost-response
// case included: retrying the same change is safe.
func (c *Cloud) TagInstance(ctx context.Context, id string, set map[string]string, remove []string) (*Instance, error) {
	inst, err := c.tag(ctx, id, set, remove)
	if err != nil {
		return nil, fmt.Errorf("cannot tag instance %q: %w", id, err)
	}
	return inst, nil
}

func (c *Cloud) tag(ctx context.Context, id string, set map[string]string, remove []string) (*Instance, error) {
	valid := func() error { return validTagChange(set, remove) }
	return onRecord(ctx, c, VerbTag.On(KindInstance), "id", id, valid, func(_ call, rec *record) (*Instance, error) {
		inst := rec.obj.(*Instance)
		tags := cloneTags(inst.Tags)
		maps.Copy(tags, set)
		for _, key := range remove {
			delete(tags, key)
		}
		if len(tags) > maxTags {
			return nil, invalid("tags", formatTags(tags), fmt.Sprintf("would be %d tags, at most %d are allowed", len(tags), maxTags))
		}
		if !maps.Equal(tags, inst.Tags) {
			c.setTagsLocked(rec, tags)
			c.stats.Updated[KindInstance]++
		}
		return as[Instance](c.objectLocked(rec), nil)
	})
}

// validTagChange checks the parameters of TagInstance.
func validTagChange(set map[string]string, remove []string) error {
	if err := validTags("set", set); err != nil {
		return err
	}
	if _, ok := set[TagInstanceGroup]; ok {
		return invalid("set key", TagInstanceGroup, "is set by the cloud")
	}
	for i, key := range remove {
		field := fmt.Sprintf("remove[%d]", i)
		switch _, inSet := set[key]; {
		case key == "":
			return invalid(field, key, "must not be empty")
		case key == TagInstanceGroup:
			return invalid(field, key, "is set by the cloud")
		case inSet:
			return invalid(field, key, "is set too")
		}
	}
	return nil
}
