package reconcile_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
)

// crdReadCounter counts the reads of CustomResourceDefinitions, the cost of contract-version discovery.
type crdReadCounter struct {
	client.Client
	reads atomic.Int64
}

func (c *crdReadCounter) count(obj client.Object) {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err == nil && gvk.Kind == "CustomResourceDefinition" || obj.GetObjectKind().GroupVersionKind().Kind == "CustomResourceDefinition" {
		c.reads.Add(1)
	}
}

func (c *crdReadCounter) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.count(obj)
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *crdReadCounter) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if list.GetObjectKind().GroupVersionKind().Kind == "CustomResourceDefinitionList" {
		c.reads.Add(1)
	}
	return c.Client.List(ctx, list, opts...)
}

func TestReconcilerDiscoversContractVersionOnce(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, _ := newFooCluster(t, ns, false, nil)
	counter := &crdReadCounter{Client: env.Client}
	noop := reconcile.ServiceFuncs[clusterScope]{
		ReconcileFunc: func(context.Context, clusterScope) (step.Result, error) {
			return step.Result{Done: true}, nil
		},
		DeleteFunc: func(context.Context, clusterScope) (step.Result, error) {
			return step.Result{Done: true}, nil
		},
	}
	// No scope.WithContractVersion: the version comes from the CRD's cluster.x-k8s.io/<contract> label.
	r, err := reconcile.NewClusterReconcilerFor(counter, &testtypes.FooCluster{},
		[]reconcile.Step[clusterScope]{{Name: "Network", Service: noop}})
	require.NoError(t, err)

	for range 3 {
		_, err := r.Reconcile(ctx, req(obj))
		require.NoError(t, err)
	}
	assert.Positive(t, counter.reads.Load(), "the first reconcile discovers the contract version from the CRD")
	first := counter.reads.Load()
	_, err = r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Equal(t, first, counter.reads.Load(), "later reconciles reuse the discovered version")
}
