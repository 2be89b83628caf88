package crdtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// timeout bounds each wait: the API server establishes a CRD and serves it in discovery within seconds.
const timeout = 30 * time.Second

// WaitUsable waits until the CRD named name is Established and c's REST mapper knows every served version of its
// kind, and returns the server's copy. Established alone is not enough: discovery, which the mapper reads, lags
// it, and a create right after can fail with "no matches for kind".
func WaitUsable(ctx context.Context, t testing.TB, c client.Client, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return false, err
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	}), "CRD %s not established", name)
	gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
	require.NoError(t, wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		for _, v := range crd.Spec.Versions {
			if _, err := c.RESTMapper().RESTMapping(gk, v.Name); v.Served && err != nil {
				return false, nil
			}
		}
		return true, nil
	}), "CRD %s not in discovery", name)
	return crd
}
