package webhooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/webhooks"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/providertest/testenv"
)

// startWebhooks starts an API server with vspherecloud's CRDs and webhook configurations (testenv.Provider installs
// config/webhook), and a manager serving only vspherecloud's webhooks, and returns a client of the API server and a
// namespace to work in.
func startWebhooks(t *testing.T) (client.Client, string) {
	t.Helper()
	ctrl.SetLogger(logr.Discard())
	env, err := testenv.Provider{ConfigDir: "../config", AddToScheme: []func(*runtime.Scheme) error{v1beta2.AddToScheme}}.NewEnvironment()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })
	require.NotEmpty(t, env.WebhookInstallOptions().ValidatingWebhooks, "config/webhook is installed")

	mgr, err := env.StartManager(t.Context(), logr.Discard(), webhooks.SetupWithManager)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, mgr.Stop()) })
	return env.Client, env.Namespace(t, "webhooks")
}

// requireInvalid fails unless err is the Invalid error of the API server and contains want.
func requireInvalid(t *testing.T, err error, want string) {
	t.Helper()
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), want)
}

func TestWebhooksInAPIServer(t *testing.T) {
	c, ns := startWebhooks(t)
	ctx := context.Background()

	t.Run("a VSphereCluster's server must be reachable and never changes", func(t *testing.T) {
		bad := &v1beta2.VSphereCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "http"}, Spec: clusterSpec()}
		bad.Spec.Server = "http://vcenter.example.com/sdk"
		requireInvalid(t, c.Create(ctx, bad), `VSphereCluster.infrastructure.vspherecloud.capkit.io "http" is invalid: `+
			`spec.server: Invalid value: "http://vcenter.example.com/sdk": must be reached over https, not http`)
		assert.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(bad), bad)))

		vc := &v1beta2.VSphereCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c1"}, Spec: clusterSpec()}
		require.NoError(t, c.Create(ctx, vc))
		moved := vc.DeepCopy()
		moved.Spec.Server, moved.Spec.Datacenter = "vcenter-2.example.com", "DC1"
		requireInvalid(t, c.Update(ctx, moved), `[spec.server: Invalid value: "vcenter-2.example.com": field is immutable (was "vcenter.example.com"), `+
			`spec.datacenter: Invalid value: "DC1": field is immutable (was "DC0")]`)

		vc.Spec.CredentialsSecretRef.Name = "vcenter-rotated"
		vc.Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}
		require.NoError(t, c.Update(ctx, vc), "new credentials, and the endpoint set once")
		vc.Spec.ControlPlaneEndpoint.Host = "10.0.0.3"
		requireInvalid(t, c.Update(ctx, vc), `spec.controlPlaneEndpoint: Invalid value: "10.0.0.3:6443": field is immutable once set (was "10.0.0.2:6443")`)
	})

	t.Run("a VSphereMachine's name is its VM's, and only providerID changes, once", func(t *testing.T) {
		long := &v1beta2.VSphereMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: strings.Repeat("m", 81)}, Spec: machineSpec()}
		requireInvalid(t, c.Create(ctx, long), `metadata.name: Invalid value: "`+long.Name+`": must have at most 80 characters, not 81`)

		m := &v1beta2.VSphereMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c1-cp-0"}, Spec: machineSpec()}
		require.NoError(t, c.Create(ctx, m))
		resized := m.DeepCopy()
		resized.Spec.NumCPUs = 4
		requireInvalid(t, c.Update(ctx, resized), `spec.numCPUs: Invalid value: 4: field is immutable (was 2)`)

		m.Spec.ProviderID = "vsphere://" + biosUUID
		require.NoError(t, c.Update(ctx, m))
		m.Spec.ProviderID = "vsphere://" + strings.Repeat("0", 8) + biosUUID[8:]
		requireInvalid(t, c.Update(ctx, m), `spec.providerID: Invalid value: "vsphere://00000000-`)
	})

	t.Run("a VSphereMachineTemplate has no providerID and cannot change except in topology dry-runs", func(t *testing.T) {
		withID := &v1beta2.VSphereMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "with-id"}}
		withID.Spec.Template.Spec = machineSpec()
		withID.Spec.Template.Spec.ProviderID = "vsphere://" + biosUUID
		requireInvalid(t, c.Create(ctx, withID), `spec.template.spec.providerID: Invalid value: "vsphere://`+biosUUID+`": must be empty in a template`)

		tmpl := &v1beta2.VSphereMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
		tmpl.Spec.Template.Spec = machineSpec()
		require.NoError(t, c.Create(ctx, tmpl))
		newer := tmpl.DeepCopy()
		newer.Spec.Template.Spec.Template = "ubuntu-2404-kube-v1.37.0"
		const immutable = "spec.template.spec.template: Forbidden: field is immutable"
		requireInvalid(t, c.Update(ctx, newer.DeepCopy()), immutable)
		requireInvalid(t, c.Update(ctx, newer.DeepCopy(), client.DryRunAll), immutable)

		// Cluster API's topology controller: server-side-apply dry-runs of the annotated template, changed and not.
		fresh := &v1beta2.VSphereMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers-topology"}}
		fresh.Spec.Template.Spec = machineSpec()
		providertest.AssertTemplateAcceptsTopologyDryRun(ctx, t, c, fresh, func(tmpl *v1beta2.VSphereMachineTemplate) {
			tmpl.Spec.Template.Spec.Template = "ubuntu-2404-kube-v1.37.0"
		})
	})
}
