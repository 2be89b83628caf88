package webhooks_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/providertest/testenv"
)

// startWebhooks starts an API server with podcloud's CRDs and webhook configurations, and a manager serving
// only podcloud's webhooks, and returns a client of the API server and a namespace to work in.
func startWebhooks(t *testing.T) (client.Client, string) {
	t.Helper()
	ctrl.SetLogger(logr.Discard())
	scheme := runtime.NewScheme()
	require.NoError(t, v1beta2.AddToScheme(scheme))
	config := filepath.Join("..", "config")
	env, err := testenv.NewEnvironment(
		testenv.WithScheme(scheme),
		testenv.WithCRDPaths(filepath.Join(config, "crd", "bases")),
		testenv.WithoutCAPICRDs(),
		testenv.WithWebhooks(envtest.WebhookInstallOptions{Paths: []string{filepath.Join(config, "webhook")}}),
	)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })

	wo := env.WebhookInstallOptions()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Logger:                 logr.Discard(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir,
		}),
	})
	require.NoError(t, err)
	require.NoError(t, webhooks.SetupWithManager(mgr))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	require.Eventually(t, func() bool {
		return mgr.GetWebhookServer().StartedChecker()(&http.Request{}) == nil
	}, 30*time.Second, 50*time.Millisecond, "the webhook server does not serve")

	ns := env.Namespace(t, "webhooks")
	return env.Client, ns
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

	t.Run("a PodMachine with a bad image is rejected", func(t *testing.T) {
		m := &v1beta2.PodMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad-image"},
			Spec: v1beta2.PodMachineSpec{Image: "kindest/Node:v1.36.3"}}
		err := c.Create(ctx, m)
		requireInvalid(t, err, `PodMachine.infrastructure.podcloud.capkit.io "bad-image" is invalid: spec.image: Invalid value: "kindest/Node:v1.36.3": must be a container image reference`)
		assert.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(m), m)))
	})

	t.Run("a PodMachine's spec is immutable except providerID set once", func(t *testing.T) {
		m := &v1beta2.PodMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m-0"},
			Spec: v1beta2.PodMachineSpec{Image: "kindest/node:v1.36.3"}}
		require.NoError(t, c.Create(ctx, m))

		changed := m.DeepCopy()
		changed.Spec.Image = "kindest/node:v1.35.0"
		requireInvalid(t, c.Update(ctx, changed), `spec.image: Invalid value: "kindest/node:v1.35.0": field is immutable (was "kindest/node:v1.36.3")`)

		m.Spec.ProviderID = v1beta2.ProviderID(ns + "/m-0/0b7d5d6c")
		require.NoError(t, c.Update(ctx, m))
		m.Spec.ProviderID = v1beta2.ProviderID(ns + "/m-0/1c8e6e7d")
		requireInvalid(t, c.Update(ctx, m), "spec.providerID: Invalid value: ")
	})

	t.Run("a PodMachine's resources hold only cpu and memory, above zero, and never change", func(t *testing.T) {
		gpu := &v1beta2.PodMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gpu"},
			Spec: v1beta2.PodMachineSpec{Resources: resources("cpu", "2", "nvidia.com/gpu", "1")}}
		// The CRD's schema says it (x-kubernetes-validations), before the webhook, so it holds without webhooks too.
		requireInvalid(t, c.Create(ctx, gpu), "spec.resources: Invalid value: only cpu and memory may be set")
		zero := &v1beta2.PodMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "zero"},
			Spec: v1beta2.PodMachineSpec{Resources: resources("cpu", "0")}}
		requireInvalid(t, c.Create(ctx, zero), `spec.resources[cpu]: Invalid value: "0": must be greater than zero`)

		m := &v1beta2.PodMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sized"},
			Spec: v1beta2.PodMachineSpec{Resources: resources("cpu", "2", "memory", "4Gi")}}
		require.NoError(t, c.Create(ctx, m))
		m.Spec.Resources = resources("cpu", "4", "memory", "4Gi")
		requireInvalid(t, c.Update(ctx, m), `spec.resources: Invalid value: "cpu=4,memory=4Gi": field is immutable (was "cpu=2,memory=4Gi")`)
	})
	t.Run("a PodCluster is defaulted and its namespace cannot change", func(t *testing.T) {
		pc := &v1beta2.PodCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "demo"}, Spec: v1beta2.PodClusterSpec{Namespace: ns}}
		require.NoError(t, c.Create(ctx, pc))
		assert.Equal(t, v1beta2.ControlPlaneServiceSpec{Type: v1beta2.ServiceClusterIP, Port: 6443}, pc.Spec.ControlPlaneService)

		pc.Spec.Namespace = "elsewhere"
		requireInvalid(t, c.Update(ctx, pc), `spec.namespace: Invalid value: "elsewhere": field is immutable (was "`+ns+`")`)
	})

	t.Run("a PodClusterTemplate is defaulted and cannot change except in topology dry-runs", func(t *testing.T) {
		tmpl := &v1beta2.PodClusterTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pods"}}
		require.NoError(t, c.Create(ctx, tmpl))
		assert.Equal(t, v1beta2.ControlPlaneServiceSpec{Type: v1beta2.ServiceClusterIP, Port: 6443}, tmpl.Spec.Template.Spec.ControlPlaneService)
		bad := &v1beta2.PodClusterTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad"}}
		bad.Spec.Template.Spec.ControlPlaneEndpoint.Host = "10.0.0.1"
		requireInvalid(t, c.Create(ctx, bad), `spec.template.spec.controlPlaneEndpoint.port: Required value: must be set when host is set`)

		nodePort := tmpl.DeepCopy()
		nodePort.Spec.Template.Spec.ControlPlaneService.Type = v1beta2.ServiceNodePort
		const immutable = "spec.template.spec.controlPlaneService.type: Forbidden: field is immutable"
		requireInvalid(t, c.Update(ctx, nodePort.DeepCopy()), immutable)
		requireInvalid(t, c.Update(ctx, nodePort.DeepCopy(), client.DryRunAll), immutable)

		// Cluster API's topology controller: server-side-apply dry-runs of the annotated template, changed and not.
		fresh := &v1beta2.PodClusterTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pods-topology"}}
		providertest.AssertTemplateAcceptsTopologyDryRun(ctx, t, c, fresh, func(tmpl *v1beta2.PodClusterTemplate) {
			tmpl.Spec.Template.Spec.ControlPlaneService.Type = v1beta2.ServiceNodePort
		})
	})
	t.Run("a PodMachineTemplate cannot change except in topology dry-runs", func(t *testing.T) {
		tmpl := &v1beta2.PodMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
		tmpl.Spec.Template.Spec.Image = "kindest/node:v1.36.3"
		require.NoError(t, c.Create(ctx, tmpl))

		newer := tmpl.DeepCopy()
		newer.Spec.Template.Spec.Image = "kindest/node:v1.37.0"
		requireInvalid(t, c.Update(ctx, newer.DeepCopy()), "spec.template.spec.image: Forbidden: field is immutable")
		requireInvalid(t, c.Update(ctx, newer.DeepCopy(), client.DryRunAll), "spec.template.spec.image: Forbidden: field is immutable")

		// Cluster API's topology controller: server-side-apply dry-runs of the annotated template, changed and not.
		fresh := &v1beta2.PodMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers-topology"}}
		fresh.Spec.Template.Spec.Image = "kindest/node:v1.36.3"
		providertest.AssertTemplateAcceptsTopologyDryRun(ctx, t, c, fresh, func(tmpl *v1beta2.PodMachineTemplate) {
			tmpl.Spec.Template.Spec.Image = "kindest/node:v1.37.0"
		})
	})
}
