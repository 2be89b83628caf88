package podcloudtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/examples/podcloud/podcloudtest"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/reconcile/ensure"
)

func TestLeakChecker(t *testing.T) {
	labels := func(key, res, cluster string) map[string]string {
		return map[string]string{ensure.TagOwnershipKey: key, ensure.TagResourceKey: res, services.LabelCluster: cluster}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m-0", Labels: labels("k1", "pod", "c1")}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m-0-again", Labels: labels("k1", "pod", "c1")}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "m-1-bootstrap", Labels: labels("k2", "bootstrap", "c9")}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c2-apiserver", Labels: labels("k3", "endpoint", "c2")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "not-ours", Labels: labels("k1", "x", "c1")}},
	).Build()
	leaks, err := podcloudtest.LeakChecker(c).Leaks(t.Context(),
		lifecycle.LeakQuery{Namespace: "ns", ClusterName: "c1", OwnershipKeys: []string{"k1", "k2"}})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"Pod ns/m-0", "Pod ns/m-0-again", "duplicate: Pod ns/m-0 and Pod ns/m-0-again", "Secret other/m-1-bootstrap"}, leaks,
		"the cluster's objects by label or ownership key, duplicates named; another cluster's Service and other kinds are not")
}

func TestBootstrapData(t *testing.T) {
	init := string(podcloudtest.BootstrapData("c1", "c1-cp-0", true))
	join := string(podcloudtest.BootstrapData("c1", "c1-md-0", false))
	assert.Contains(t, init, "kubeadm init")
	assert.Contains(t, join, "kubeadm join")
	assert.Contains(t, join, podcloudtest.BootstrapTokenMarker)
	assert.Contains(t, join, "{{ ds.meta_data.local_hostname }}", "a jinja template, as CABPK writes")
}
