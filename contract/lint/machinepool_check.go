package lint

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
)

// CheckInfraMachinePool checks a live InfraMachinePool against contract version v: shapes as CheckInfraCluster
// does, and what Cluster API v1.14's MachinePool controller relies on:
//
//   - every entry of spec.providerIDList has the "<provider>://<id>" form of a Node's providerID, once;
//   - status.replicas counts the instances the list names (the controller reads the two together);
//   - a provisioned v1beta2 pool sets status.ready too, the flag the controller reads;
//   - status.failureReason and status.failureMessage are not set: Cluster API v1.14.2 fails to reconcile a
//     MachinePool whose InfraMachinePool sets them;
//   - conditions are valid.
func CheckInfraMachinePool(u *unstructured.Unstructured, v contract.Version) Violations {
	c, out := newObjectCheck(u, KindInfraMachinePool, v)
	if c == nil {
		return out
	}
	f := contract.InfraMachinePool(v)
	ids, idsErr := f.ProviderIDList().Get(u)
	seen := map[string]bool{}
	for i, id := range ids {
		switch {
		case !strings.Contains(id, "://"):
			c.add("inframachinepool.providerIDList", f.ProviderIDList().Path(),
				"entry %d %q must have the form <provider>://<id>, exactly as the Node's spec.providerID", i, id)
		case seen[id]:
			c.add("inframachinepool.providerIDList", f.ProviderIDList().Path(), "entry %d %q appears more than once", i, id)
		}
		seen[id] = true
	}
	replicas, repErr := f.Replicas().Get(u)
	provisioned, _ := f.Provisioned().Get(u)
	if idsErr == nil && repErr == nil && provisioned && replicas != int64(len(ids)) {
		c.add("inframachinepool.replicas", f.Replicas().Path(),
			"status.replicas is %d but spec.providerIDList names %d instances: keep them in step", replicas, len(ids))
	}
	if ready, _ := f.Ready().Get(u); v != contract.V1Beta1 && provisioned && !ready {
		c.add("inframachinepool.ready", f.Ready().Path(),
			"%s is true but status.ready is not: Cluster API v1.14 reads only status.ready for machine pools", f.Provisioned().Path())
	}
	for _, fd := range []contract.Field[string]{f.FailureReason(), f.FailureMessage()} {
		if s, _ := fd.Get(u); s != "" {
			c.add("inframachinepool.failure", fd.Path(),
				"%s is set: Cluster API v1.14.2 cannot reconcile a MachinePool whose infrastructure sets it; report failures with conditions", fd.Path())
		}
	}
	c.checkConditions("inframachinepool.conditions", f.Conditions())
	return c.sorted()
}
