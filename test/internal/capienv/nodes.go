package capienv

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// JoinNode plays the kubelet of a booted machine: it creates the Node name with providerID in the workload
// cluster (the API server of c), unless it exists already, and reports it Ready without memory, disk or PID
// pressure, which Cluster API's NodeHealthy needs. Other writers of the same Node (KWOK's fake kubelet, a node
// lifecycle controller) are tolerated: the conditions go in a strategic merge patch of the status, merged by
// condition type and sent without a resourceVersion, so a concurrent write can never make it conflict.
func JoinNode(ctx context.Context, c client.Client, name, providerID string) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	if err := c.Create(ctx, node); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("cannot create Node %q: %w", name, err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(node), node); err != nil {
			return fmt.Errorf("cannot read Node %q: %w", name, err)
		}
	}
	base := node.DeepCopy()
	base.Status.Conditions = nil
	patched := base.DeepCopy()
	now := metav1.Now()
	for _, cond := range []struct {
		typ    corev1.NodeConditionType
		status corev1.ConditionStatus
	}{
		{corev1.NodeReady, corev1.ConditionTrue}, {corev1.NodeMemoryPressure, corev1.ConditionFalse},
		{corev1.NodeDiskPressure, corev1.ConditionFalse}, {corev1.NodePIDPressure, corev1.ConditionFalse},
	} {
		patched.Status.Conditions = append(patched.Status.Conditions, corev1.NodeCondition{Type: cond.typ, Status: cond.status,
			Reason: "CapkitTest", LastHeartbeatTime: now, LastTransitionTime: now})
	}
	if err := c.Status().Patch(ctx, patched, client.StrategicMergeFrom(base)); err != nil {
		return fmt.Errorf("cannot report Node %q ready: %w", name, err)
	}
	return nil
}

// DeleteNodes deletes the Nodes named names that are left (Cluster API keeps the last control plane Node of a
// deleted cluster).
func DeleteNodes(ctx context.Context, c client.Client, names ...string) error {
	for _, n := range names {
		if err := c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("cannot delete Node %q: %w", n, err)
		}
	}
	return nil
}

// CreateAll creates objs in order through c; an object that exists already is left as it is.
func CreateAll(ctx context.Context, c client.Client, objs ...client.Object) error {
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("cannot create %T %q: %w", o, o.GetName(), err)
		}
	}
	return nil
}

// TailFile returns the last n lines of the file at path, or why it cannot be read.
func TailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("cannot read %q: %v", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// NodeJoinedAnnotation is the annotation JoinFirstControlPlaneNode touches on a Machine to have Cluster API
// reconcile it again.
const NodeJoinedAnnotation = "capienv.capkit.io/node-joined"

// JoinFirstControlPlaneNode plays the kubelet of a Cluster's first control plane Machine (see JoinNode) and
// reports whether the Machine has its nodeRef; call it until it does.
//
// Cluster API v1.14's Machine controller watches a workload cluster's Nodes only once the Cluster's
// ControlPlaneInitialized condition is True, and for a Cluster without a control plane provider that condition
// waits for the first control plane Machine's nodeRef. So the creation of that Machine's Node triggers no
// reconcile: the Machine controller, which found no Node at its last reconcile and does not requeue, sets the
// nodeRef only at the Machine's next event, and without one waits for its sync period (10 minutes). A kubelet on
// a real machine comes much later than the Machine's other events, so a real cluster rarely meets this; a test
// that joins at once does (TestPodcloudWithRealClusterAPI failed so). While the Machine has no nodeRef, this
// touches NodeJoinedAnnotation on it, an update event that makes Cluster API reconcile it and find the Node.
func JoinFirstControlPlaneNode(ctx context.Context, c client.Client, machine client.ObjectKey, nodeName, providerID string) (bool, error) {
	if err := JoinNode(ctx, c, nodeName, providerID); err != nil {
		return false, err
	}
	return NudgeMachineWithoutNodeRef(ctx, c, machine)
}

// NudgeMachineWithoutNodeRef reports whether the Machine has its nodeRef and, while it has none, touches
// NodeJoinedAnnotation on it so that Cluster API reconciles it again (see JoinFirstControlPlaneNode).
func NudgeMachineWithoutNodeRef(ctx context.Context, c client.Client, machine client.ObjectKey) (bool, error) {
	m := &clusterv1.Machine{}
	if err := c.Get(ctx, machine, m); err != nil {
		return false, fmt.Errorf("cannot read Machine %s: %w", machine, err)
	}
	if m.Status.NodeRef.IsDefined() {
		return true, nil
	}
	patch := client.MergeFrom(m.DeepCopy())
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[NodeJoinedAnnotation] = time.Now().UTC().Format(time.RFC3339Nano)
	if err := c.Patch(ctx, m, patch); err != nil {
		return false, fmt.Errorf("cannot annotate Machine %s: %w", machine, err)
	}
	return false, nil
}
