package services_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/providertest/ensuretest"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/kubeobjects"
)

// inNamespace is a Resource of specs that name no namespace: it gives them the fixture's, as the steps give
// them the PodCluster's target namespace. ValidSpec is one value for every scenario, and each scenario runs
// in a fresh namespace.
type inNamespace[S any, O client.Object] struct {
	r   ensure.Resource[S, O]
	set func(S) S
}

func (n inNamespace[S, O]) Validate(s S) error { return n.r.Validate(n.set(s)) }

func (n inNamespace[S, O]) Get(ctx context.Context, id string) (O, bool, error) {
	return n.r.Get(ctx, id)
}

func (n inNamespace[S, O]) FindByTags(ctx context.Context, tags map[string]string) (O, bool, error) {
	return n.r.FindByTags(ctx, tags)
}

func (n inNamespace[S, O]) Create(ctx context.Context, s S, token string, tags map[string]string) (O, error) {
	return n.r.Create(ctx, n.set(s), token, tags)
}

func (n inNamespace[S, O]) Delete(ctx context.Context, id string) error { return n.r.Delete(ctx, id) }

func (n inNamespace[S, O]) ID(obs O) string { return n.r.ID(obs) }

// Pending passes on the Resource's: every Resource of package kubeobjects reports pending objects.
func (n inNamespace[S, O]) Pending(obs O) (string, string, bool) {
	return n.r.(ensure.PendingReporter[O]).Pending(obs)
}

// Guarantees passes on the Resource's: every Resource of package kubeobjects declares them (ensure.Declarer).
func (n inNamespace[S, O]) Guarantees() ensure.Guarantees {
	return n.r.(ensure.Declarer).Guarantees()
}

// inNamespaceUpdater is inNamespace of a ensure.Updater.
type inNamespaceUpdater[S any, O client.Object] struct{ inNamespace[S, O] }

func (n inNamespaceUpdater[S, O]) Diff(s S, obs O) ([]string, bool) {
	return n.r.(ensure.Updater[S, O]).Diff(n.set(s), obs)
}

func (n inNamespaceUpdater[S, O]) Update(ctx context.Context, id string, s S, obs O) (O, error) {
	return n.r.(ensure.Updater[S, O]).Update(ctx, id, n.set(s), obs)
}

// withNamespace wraps r, keeping what it implements of ensure.Updater.
func withNamespace[S any, O client.Object](r ensure.Resource[S, O], set func(S) S) ensure.Resource[S, O] {
	n := inNamespace[S, O]{r: r, set: set}
	if _, ok := r.(ensure.Updater[S, O]); ok {
		return inNamespaceUpdater[S, O]{n}
	}
	return n
}

var (
	_ ensure.PendingReporter[*corev1.Pod]                   = inNamespace[services.PodSpec, *corev1.Pod]{}
	_ ensure.Declarer                                       = inNamespace[services.PodSpec, *corev1.Pod]{}
	_ ensure.Updater[services.ServiceSpec, *corev1.Service] = inNamespaceUpdater[services.ServiceSpec, *corev1.Service]{}
)

// scenarioFixture returns the fixture of one kind in a fresh namespace: Count counts the objects of the kind
// that carry the ownership labels there (the scenarios' owner is the only one), being deleted or not, and DeleteOutOfBand deletes
// one as a user would.
func scenarioFixture[S any, O client.Object](t testing.TB, ns string, res ensure.Resource[S, O], emptyList client.ObjectList,
	empty O) ensuretest.CloudFixture[S, O] {
	t.Helper()
	ctx := t.Context()
	return ensuretest.CloudFixture[S, O]{
		Resource: res,
		Count: func() int {
			list := emptyList.DeepCopyObject().(client.ObjectList)
			require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns), client.HasLabels{ensure.TagOwnershipKey}))
			return meta.LenList(list)
		},
		DeleteOutOfBand: func(id string) error {
			key, _, err := kubeobjects.ParseID(id)
			if err != nil {
				return err
			}
			obj := empty.DeepCopyObject().(O)
			obj.SetNamespace(key.Namespace)
			obj.SetName(key.Name)
			return env.Client.Delete(ctx, obj)
		},
	}
}

// newResources returns podcloud's Resources of a fresh namespace.
func newResources(t testing.TB) (services.Resources, string) {
	t.Helper()
	ns := env.Namespace(t, "podcloud")
	r, err := services.NewResources(env.Client, ns)
	require.NoError(t, err)
	return r, ns
}

// TestEnsureScenarios runs capkit's standard Ensure scenarios on podcloud's Resources against a real API
// server, each scenario in a fresh namespace. An object's ID is namespace/name/uid and Create is idempotent
// by name, so an object deleted out of band is created again (Recreate) unless the step asks for
// ensure.CreateOnce, as the Pod step does. No tag search lags and every Create answers, so LagSearch and
// FailNextCreateAfterChange are not set: the harness wraps Create to lose its response.
func TestEnsureScenarios(t *testing.T) {
	opts := []ensure.Option{ensure.WithTags(map[string]string{services.LabelCluster: clusterName}), ensure.WithPollInterval(poll)}
	ctx := context.Background()

	t.Run("ServiceAccounts", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[string, *corev1.ServiceAccount]{
			Key: services.KeyServiceAccount, Options: opts, OutOfBandDelete: ensuretest.Recreate,
			ValidSpec:   services.ServiceAccountName(clusterName),
			InvalidSpec: "Not_A_Name",
			New: func(t testing.TB) ensuretest.CloudFixture[string, *corev1.ServiceAccount] {
				r, ns := newResources(t)
				return scenarioFixture(t, ns, r.ServiceAccounts, &corev1.ServiceAccountList{},
					&corev1.ServiceAccount{})
			},
		})
	})

	t.Run("Services", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[services.ServiceSpec, *corev1.Service]{
			Key: services.KeyEndpoint, Options: opts, OutOfBandDelete: ensuretest.Recreate,
			ValidSpec:   services.ServiceSpec{Name: services.ServiceName(clusterName), Cluster: clusterName, Type: "ClusterIP", Port: 6443},
			InvalidSpec: services.ServiceSpec{Name: services.ServiceName(clusterName), Cluster: clusterName, Type: "ClusterIP", Port: 70000},
			New: func(t testing.TB) ensuretest.CloudFixture[services.ServiceSpec, *corev1.Service] {
				r, ns := newResources(t)
				res := withNamespace(r.Services, func(s services.ServiceSpec) services.ServiceSpec { s.Namespace = ns; return s })
				f := scenarioFixture(t, ns, res, &corev1.ServiceList{},
					&corev1.Service{})
				f.Drift = func(id string) error { // someone points the Service at other Pods
					key, _, err := kubeobjects.ParseID(id)
					if err != nil {
						return err
					}
					svc := &corev1.Service{}
					if err := env.Client.Get(ctx, key, svc); err != nil {
						return err
					}
					svc.Spec.Selector = map[string]string{"app": "intruder"}
					return env.Client.Update(ctx, svc)
				}
				return f
			},
		})
	})

	t.Run("Secrets", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[services.SecretSpec, *corev1.Secret]{
			Key: services.KeyBootstrap, Options: opts, OutOfBandDelete: ensuretest.Recreate,
			ValidSpec:   services.SecretSpec{Name: services.SecretName("m-0"), Script: []byte("#!/bin/bash\ntrue\n")},
			InvalidSpec: services.SecretSpec{Name: services.SecretName("m-0")},
			New: func(t testing.TB) ensuretest.CloudFixture[services.SecretSpec, *corev1.Secret] {
				r, ns := newResources(t)
				res := withNamespace(r.Secrets, func(s services.SecretSpec) services.SecretSpec { s.Namespace = ns; return s })
				return scenarioFixture(t, ns, res, &corev1.SecretList{},
					&corev1.Secret{})
			},
		})
	})

	podSpec := services.PodSpec{Name: "m-0", Image: "kindest/node:" + kubeVersion, ServiceAccount: "node",
		Secret: services.SecretName("m-0"), Zone: "zone-a", ControlPlane: true, Port: 6443}
	pods := func(t testing.TB) ensuretest.CloudFixture[services.PodSpec, *corev1.Pod] {
		r, ns := newResources(t)
		createServiceAccount(t, ns, podSpec.ServiceAccount)
		res := withNamespace(r.Pods, func(s services.PodSpec) services.PodSpec { s.Namespace = ns; return s })
		f := scenarioFixture(t, ns, res, &corev1.PodList{},
			&corev1.Pod{})
		f.MakePending = func(id string) error { // scheduled, its image being pulled
			key, _, err := kubeobjects.ParseID(id)
			if err != nil {
				return err
			}
			pod := &corev1.Pod{}
			if err := env.Client.Get(ctx, key, pod); err != nil {
				return err
			}
			pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
				{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"},
			}}
			return env.Client.Status().Update(ctx, pod)
		}
		return f
	}
	// The Resource alone: a Pod is named after its machine, so a Pod deleted out of band is created again.
	t.Run("Pods", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[services.PodSpec, *corev1.Pod]{
			Key: services.KeyPod, Options: opts, OutOfBandDelete: ensuretest.Recreate,
			ValidSpec: podSpec, InvalidSpec: services.PodSpec{Name: "m-0", ServiceAccount: "node"},
			New: pods,
		})
	})
	// As the Pod step uses it: a machine gets one Pod, ever.
	t.Run("PodsCreateOnce", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[services.PodSpec, *corev1.Pod]{
			Key: services.KeyPod, Options: append(opts, ensure.CreateOnce()), OutOfBandDelete: ensuretest.ReportTerminal,
			ValidSpec: podSpec, InvalidSpec: services.PodSpec{Name: "m-0", ServiceAccount: "node"},
			New: pods,
		})
	})
}
