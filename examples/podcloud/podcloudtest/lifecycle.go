package podcloudtest

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/reconcile/ensure"
)

// Cluster describes a podcloud cluster for LifecycleSpec.
type Cluster struct {
	// Namespace and Name name the Cluster and its PodCluster; the Pods run in Namespace too.
	Namespace, Name string
	// ControlPlane and Workers are how many Machines of each role to create.
	ControlPlane, Workers int
	// Image is the PodMachines' spec.image; empty: the kind node image of the Machines' version.
	Image string
}

// LifecycleSpec returns the lifecycle.Spec of c with podcloud's kinds, kubeadm-style bootstrap data
// (BootstrapData), PlayCAPI and a poll interval of 50ms; leaks is usually LeakChecker(env.Client).
func LifecycleSpec(c Cluster, leaks lifecycle.LeakChecker) lifecycle.Spec {
	return lifecycle.Spec{
		Namespace: c.Namespace, ClusterName: c.Name,
		InfraClusterGVK: v1beta2.GroupVersion.WithKind("PodCluster"), InfraMachineGVK: v1beta2.GroupVersion.WithKind("PodMachine"),
		InfraCluster: func(_, _ string) (client.Object, error) { return &v1beta2.PodCluster{}, nil },
		InfraMachine: func(_, name string, _ bool) (client.Object, error) {
			return &v1beta2.PodMachine{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1beta2.PodMachineSpec{Image: c.Image}}, nil
		},
		ControlPlaneMachines: c.ControlPlane, WorkerMachines: c.Workers,
		BootstrapData: lifecycle.KubeadmBootstrapData(c.Name, BootstrapTokenMarker, ""),
		PlayCAPI:      true,
		PollInterval:  50 * time.Millisecond,
		LeakChecker:   leaks,
	}
}

// Kinds are the kinds of objects podcloud makes in the target cluster, as lists.
func Kinds() []client.ObjectList {
	return []client.ObjectList{&corev1.PodList{}, &corev1.SecretList{}, &corev1.ServiceList{}, &corev1.ServiceAccountList{}}
}

// LeakChecker returns a lifecycle.LeakChecker over the target cluster r: an object is left of a deleted
// cluster when it carries the cluster's label (services.LabelCluster) in the cluster's namespace, or one of
// the ownership keys of the query; two objects with the same owner and resource key are reported as
// "duplicate: ...".
func LeakChecker(r client.Reader) lifecycle.LeakChecker {
	return lifecycle.LeakCheckerFunc(func(ctx context.Context, q lifecycle.LeakQuery) ([]string, error) {
		objs, err := Objects(ctx, r, "")
		if err != nil {
			return nil, err
		}
		var out []string
		seen := map[string]string{}
		for _, o := range objs {
			l := o.Labels
			key := l[ensure.TagOwnershipKey]
			mine := slices.Contains(q.OwnershipKeys, key) || (o.Namespace == q.Namespace && l[services.LabelCluster] == q.ClusterName)
			if !mine {
				continue
			}
			out = append(out, o.String())
			if k := key + "/" + l[ensure.TagResourceKey]; key != "" && seen[k] != "" {
				out = append(out, "duplicate: "+seen[k]+" and "+o.String())
			} else {
				seen[k] = o.String()
			}
		}
		return out, nil
	})
}

// Object is one object podcloud made in the target cluster.
type Object struct {
	Kind, Namespace, Name string
	Labels                map[string]string
	Deleting              bool
}

// String returns "Kind namespace/name".
func (o Object) String() string { return o.Kind + " " + o.Namespace + "/" + o.Name }

// Objects lists the Pods, Secrets, Services and ServiceAccounts with podcloud's ownership label in namespace
// ns of r (every namespace when empty).
func Objects(ctx context.Context, r client.Reader, ns string) ([]Object, error) {
	var out []Object
	for _, list := range Kinds() {
		if err := r.List(ctx, list, client.InNamespace(ns), client.HasLabels{ensure.TagOwnershipKey}); err != nil {
			return nil, fmt.Errorf("cannot list %T: %w", list, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			o, ok := item.(client.Object)
			if !ok {
				continue
			}
			kind := fmt.Sprintf("%T", o)[len("*v1."):]
			out = append(out, Object{Kind: kind, Namespace: o.GetNamespace(), Name: o.GetName(), Labels: o.GetLabels(), Deleting: o.GetDeletionTimestamp() != nil})
		}
	}
	return out, nil
}

// BootstrapTokenMarker is part of every bootstrap data BootstrapData makes, so that tests can assert that
// it appears nowhere but in the bootstrap Secrets of the target cluster (base64-encoded in the script).
const BootstrapTokenMarker = "podcloudtest-secret-token"

// BootstrapData returns a kubeadm-style cloud-config for a machine (lifecycle.KubeadmBootstrapData) with a
// fake join token that contains BootstrapTokenMarker.
func BootstrapData(cluster, machine string, controlPlane bool) []byte {
	return lifecycle.KubeadmBootstrapData(cluster, BootstrapTokenMarker, "")(machine, controlPlane)
}
