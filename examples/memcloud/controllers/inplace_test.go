package controllers_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/inplace"
	"github.com/capkit/capkit/providertest/lifecycle"
)

// hooks calls the in-place update extension the provider serves on envtest's webhook port, as Cluster API
// does once an ExtensionConfig points at it.
type hooks struct {
	base string
	http *http.Client
}

func newHooks(t *testing.T) hooks {
	t.Helper()
	wo := env.WebhookInstallOptions()
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(wo.LocalServingCAData))
	return hooks{
		base: "https://" + net.JoinHostPort(wo.LocalServingHost, strconv.Itoa(wo.LocalServingPort)) + "/" + inplace.APIVersion + "/",
		http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}},
	}
}

// call posts req to the hook at path and decodes the answer into resp.
func (h hooks) call(t *testing.T, path string, req, resp any) {
	t.Helper()
	body, err := json.Marshal(req)
	require.NoError(t, err)
	r, err := h.http.Post(h.base+path, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer func() { _ = r.Body.Close() }()
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NoError(t, json.NewDecoder(r.Body).Decode(resp))
}

// updateMachine asks the extension to update mm's machine, as Cluster API does.
func (h hooks) updateMachine(t *testing.T, mm *v1beta2.MemMachine) inplace.UpdateMachineResponse {
	t.Helper()
	return h.post(t, *updateRequest(mm))
}

// post sends an UpdateMachine request.
func (h hooks) post(t *testing.T, req inplace.UpdateMachineRequest) inplace.UpdateMachineResponse {
	t.Helper()
	var resp inplace.UpdateMachineResponse
	h.call(t, "updatemachine/"+controllers.InPlaceExtensionName+"-update-machine", req, &resp)
	return resp
}

// startInPlaceUpdate writes mm's new spec and marks its Machine and mm as Cluster API does before it calls
// UpdateMachine: the update-in-progress annotation on both, UpdateMachine pending on the Machine.
func startInPlaceUpdate(t *testing.T, mm *v1beta2.MemMachine) {
	t.Helper()
	ctx := t.Context()
	machine := &unstructured.Unstructured{}
	machine.SetAPIVersion("cluster.x-k8s.io/v1beta2")
	machine.SetKind("Machine")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(mm), machine))
	patch := client.MergeFrom(machine.DeepCopy())
	machine.SetAnnotations(map[string]string{inplace.UpdateInProgressAnnotation: "", inplace.PendingHooksAnnotation: "UpdateMachine"})
	require.NoError(t, env.Client.Patch(ctx, machine, patch))
	if mm.Annotations == nil {
		mm.Annotations = map[string]string{}
	}
	mm.Annotations[inplace.UpdateInProgressAnnotation] = ""
	require.NoError(t, env.Client.Update(ctx, mm))
}

// provisionedCluster creates a cluster of one worker, waits until it is provisioned and returns its driver and
// the worker's MemMachine.
func provisionedCluster(t *testing.T, cl *cloud.Cloud, spec memcloudtest.Cluster) (*lifecycle.Driver, *v1beta2.MemMachine) {
	t.Helper()
	ctx := t.Context()
	d, err := lifecycle.New(env.Client, memcloudtest.LifecycleSpec(spec, memcloudtest.LeakChecker(cl)))
	require.NoError(t, err)
	require.NoError(t, d.Create(ctx))
	require.NoError(t, d.WaitProvisioned(ctx))
	mm := &v1beta2.MemMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: spec.Namespace, Name: spec.Name + "-md-0"}, mm))
	return d, mm
}

// TestInPlaceExtension drives memcloud's in-place update extension as Cluster API does, over HTTPS on the
// manager's webhook server: discovery, then, once the MemMachine holds the new spec, UpdateMachine until it is
// done. The flavor and tags change on the same instance; the controller reports InstanceReady again afterwards.
func TestInPlaceExtension(t *testing.T) {
	ctx := context.Background()
	cl := memcloudtest.NewCloud(t, cloud.WithSeed(27), cloud.WithPendingGets(2))
	p, err := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{Shared: cl})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })
	h := newHooks(t)

	var discovery inplace.DiscoveryResponse
	h.call(t, "discovery", map[string]string{"apiVersion": inplace.APIVersion, "kind": "DiscoveryRequest"}, &discovery)
	require.Equal(t, inplace.ResponseStatusSuccess, discovery.Status)
	var names []string
	for _, hd := range discovery.Handlers {
		names = append(names, hd.Name)
	}
	assert.Equal(t, []string{"memcloud-can-update-machine", "memcloud-can-update-machineset", "memcloud-update-machine"}, names)

	d, mm := provisionedCluster(t, cl, memcloudtest.Cluster{Namespace: env.Namespace(t, "controllers"), Name: "inplace", ControlPlane: 1, Workers: 1})
	id, err := v1beta2.InstanceIDFromProviderID(mm.Spec.ProviderID)
	require.NoError(t, err)
	created := cl.TotalCreated()

	// Cluster API writes the new template's spec into the MemMachine (the webhook lets flavor and tags change),
	// then calls UpdateMachine until it is done.
	mm.Spec.Flavor, mm.Spec.Tags = v1beta2.FlavorLarge, map[string]string{"team": "blue"}
	startInPlaceUpdate(t, mm)
	var last inplace.UpdateMachineResponse
	require.Eventually(t, func() bool {
		last = h.updateMachine(t, mm)
		require.Equal(t, inplace.ResponseStatusSuccess, last.Status, last.Message)
		return last.RetryAfterSeconds == 0
	}, 30*time.Second, 50*time.Millisecond)
	assert.Equal(t, fmt.Sprintf("instance %s runs with flavor large", id), last.Message)

	inst, err := cl.GetInstance(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "large", inst.Flavor)
	assert.Equal(t, "blue", inst.Tags["team"])
	assert.Equal(t, created, cl.TotalCreated(), "the same instance: nothing created")
	require.Eventually(t, func() bool {
		got := &v1beta2.MemMachine{}
		return env.Client.Get(ctx, client.ObjectKeyFromObject(mm), got) == nil &&
			conditions.IsTrue(got, v1beta2.InstanceReadyCondition) && got.Status.ObservedGeneration == got.Generation
	}, 30*time.Second, 50*time.Millisecond, "the controller sees the instance up to date")

	// The request's copy is never used: a body that says another flavor changes nothing.
	forged := mm.DeepCopy()
	forged.Spec.Flavor = v1beta2.FlavorSmall
	resp := h.updateMachine(t, forged)
	assert.Equal(t, inplace.ResponseStatusSuccess, resp.Status, resp.Message)
	inst, err = cl.GetInstance(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "large", inst.Flavor, "the MemMachine the API server holds says large")

	require.NoError(t, d.Delete(ctx))
	leaks, err := d.Leaks(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, leaks)
}

// TestInPlaceExtensionUsesTheClusterIdentity: with identities, the extension calls memcloud with the account of
// the machine's cluster, as the controllers do; without them, a cloud with accounts refuses its calls.
func TestInPlaceExtensionUsesTheClusterIdentity(t *testing.T) {
	ctx := t.Context()
	cl, system := multiTenant(t, 28)
	d, mm, tenant := tenantCluster(t, cl, system, "tenant")
	mm.Spec.Tags = map[string]string{"team": "blue"}
	startInPlaceUpdate(t, mm)
	req := updateRequest(mm)

	anonymous, err := controllers.NewInPlaceExtension(env.Client, cl)
	require.NoError(t, err)
	resp := anonymous.UpdateMachine(ctx, req)
	assert.Equal(t, inplace.ResponseStatusFailure, resp.Status)
	assert.Contains(t, resp.Message, "unauthorized: GetInstance without credentials")

	ext, err := controllers.NewInPlaceExtension(env.Client, cl, controllers.WithIdentities(system, nil))
	require.NoError(t, err)
	calls := cl.Calls().ByAccount[tenant]
	resp = ext.UpdateMachine(ctx, req)
	assert.Equal(t, inplace.ResponseStatusSuccess, resp.Status, resp.Message)
	assert.Zero(t, resp.RetryAfterSeconds, "tags change at once")
	assert.GreaterOrEqual(t, cl.Calls().ByAccount[tenant], calls+1, "with the tenant's credentials (the controller may call too)")
	id, err := v1beta2.InstanceIDFromProviderID(mm.Spec.ProviderID)
	require.NoError(t, err)
	inst, err := cl.GetInstance(cloud.WithCredentials(ctx, tenantCredentials(t, system, tenant)), id)
	require.NoError(t, err)
	assert.Equal(t, "blue", inst.Tags["team"])

	require.NoError(t, d.Delete(ctx))
}

// TestInPlaceExtensionRefusesForgedRequests reproduces the attack of the security review on memcloud wired as in
// production (identities on, the extension on the manager's webhook server over HTTPS): Cluster API does not
// authenticate to an extension, so a pod that reaches the port posts UpdateMachine requests of its own. None
// changes the victim tenant's instance, and every answer is the same refusal.
func TestInPlaceExtensionRefusesForgedRequests(t *testing.T) {
	ctx := t.Context()
	cl, system := multiTenant(t, 29)
	h := newHooks(t)
	dv, victim, tenant := tenantCluster(t, cl, system, "victim")
	victimCreds := tenantCredentials(t, system, tenant)
	da, attacker, _ := tenantCluster(t, cl, system, "attacker")
	victimID, err := v1beta2.InstanceIDFromProviderID(victim.Spec.ProviderID)
	require.NoError(t, err)
	before, err := cl.GetInstance(cloud.WithCredentials(ctx, victimCreds), victimID)
	require.NoError(t, err)
	require.NotEqual(t, "large", before.Flavor, "the attack asks for large")

	// The attacker's own machine is being updated in place: a request naming it is confirmed.
	startInPlaceUpdate(t, attacker)
	large := func(mm *v1beta2.MemMachine) *v1beta2.MemMachine {
		f := mm.DeepCopy()
		f.Spec.Flavor, f.Spec.Tags, f.Spec.ProviderID = v1beta2.FlavorLarge, map[string]string{"owned": "attacker"}, victim.Spec.ProviderID
		f.Labels[contract.ClusterNameLabel] = victim.Labels[contract.ClusterNameLabel]
		return f
	}
	ghost := large(attacker)
	ghost.Name = "ghost"
	wrongInfra := large(attacker)
	wrongInfra.Name = victim.Name
	for name, req := range map[string]inplace.UpdateMachineRequest{
		"a MemMachine that does not exist, with the victim's providerID and cluster": requestOf(t, ghost, ghost.Name),
		"the victim's own Machine, not being updated in place":                       requestOf(t, large(victim), victim.Name),
		"the attacker's Machine in update, the victim's MemMachine name":             requestOf(t, wrongInfra, attacker.Name),
	} {
		resp := h.post(t, req)
		assert.Equal(t, inplace.ResponseStatusFailure, resp.Status, name)
		assert.Equal(t, "refused: the request does not name a Machine that Cluster API is updating in place with this extension", resp.Message, name)
	}
	after, err := cl.GetInstance(cloud.WithCredentials(ctx, victimCreds), victimID)
	require.NoError(t, err)
	assert.Equal(t, before.Flavor, after.Flavor, "the victim's instance keeps its flavor")
	assert.Equal(t, before.Tags, after.Tags, "and its tags")

	// The request naming the attacker's own Machine updates only the attacker's instance, from its live spec.
	resp := h.post(t, requestOf(t, large(attacker), attacker.Name))
	assert.Equal(t, inplace.ResponseStatusSuccess, resp.Status, resp.Message)
	after, err = cl.GetInstance(cloud.WithCredentials(ctx, victimCreds), victimID)
	require.NoError(t, err)
	assert.Equal(t, before.Flavor, after.Flavor)

	require.NoError(t, dv.Delete(ctx))
	require.NoError(t, da.Delete(ctx))
}

// multiTenant starts memcloud's manager with identities in a namespace of their own (returned) on cloud cl.
func multiTenant(t *testing.T, seed uint64) (*cloud.Cloud, string) {
	t.Helper()
	cl := memcloudtest.NewCloud(t, cloud.WithSeed(seed))
	system := env.Namespace(t, "controllers")
	p, err := memcloudtest.StartProvider(context.Background(), env, memcloudtest.Options{Shared: cl, IdentityNamespace: system})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })
	return cl, system
}

// tenantCluster creates a tenant (an identity named after name) and its provisioned cluster of one worker in a
// namespace of its own; it returns the cluster's driver, the worker's MemMachine and the tenant's name.
func tenantCluster(t *testing.T, cl *cloud.Cloud, system, name string) (*lifecycle.Driver, *v1beta2.MemMachine, string) {
	t.Helper()
	ns := env.Namespace(t, "controllers")
	tenant := name + "-" + ns[len(ns)-5:]
	require.NoError(t, memcloudtest.CreateIdentity(t.Context(), env.Client, cl, system, tenant, ns))
	d, mm := provisionedCluster(t, cl, memcloudtest.Cluster{Namespace: ns, Name: name, Workers: 1, Identity: tenant})
	return d, mm, tenant
}

// updateRequest is Cluster API's UpdateMachine request for mm's Machine (of the same name).
func updateRequest(mm *v1beta2.MemMachine) *inplace.UpdateMachineRequest {
	machine := &unstructured.Unstructured{}
	machine.SetAPIVersion("cluster.x-k8s.io/v1beta2")
	machine.SetKind("Machine")
	machine.SetNamespace(mm.Namespace)
	machine.SetName(mm.Name)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mm)
	if err != nil {
		panic(err)
	}
	infra := &unstructured.Unstructured{Object: u}
	infra.SetGroupVersionKind(v1beta2.GroupVersion.WithKind("MemMachine"))
	return &inplace.UpdateMachineRequest{Desired: inplace.MachineObjects{Machine: machine, InfrastructureMachine: infra}}
}

// requestOf is an UpdateMachine request for the Machine named machine and the MemMachine mm.
func requestOf(t *testing.T, mm *v1beta2.MemMachine, machine string) inplace.UpdateMachineRequest {
	t.Helper()
	req := updateRequest(mm)
	req.Desired.Machine.SetName(machine)
	return *req
}

// tenantCredentials reads the memcloud credentials of identity name from its Secret in system.
func tenantCredentials(t *testing.T, system, name string) cloud.Credentials {
	t.Helper()
	s := &corev1.Secret{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: system, Name: name}, s))
	return cloud.Credentials{AccessKeyID: string(s.Data[v1beta2.CredentialsAccessKeyID]), SecretAccessKey: string(s.Data[v1beta2.CredentialsSecretAccessKey])}
}

func TestNewInPlaceExtensionRejects(t *testing.T) {
	cl := memcloudtest.NewCloud(t)
	_, err := controllers.NewInPlaceExtension(env.Client, nil)
	require.ErrorContains(t, err, "cloud must not be nil")
	_, err = controllers.NewInPlaceExtension(nil, cl)
	require.ErrorContains(t, err, "reader is nil")
	require.ErrorContains(t, controllers.SetupInPlaceExtension(nil, cl), "manager is nil")
	cfg, err := controllers.NewInPlaceExtension(env.Client, cl)
	require.NoError(t, err)
	assert.Equal(t, v1beta2.InPlaceFields, cfg.Mutable)
}

// TestInPlaceExtensionAnswers checks which template changes memcloud makes in place, with the answers of
// CanUpdateMachineSet: no API server or cloud call is needed.
func TestInPlaceExtensionAnswers(t *testing.T) {
	cl := memcloudtest.NewCloud(t)
	ext, err := controllers.NewInPlaceExtension(env.Client, cl)
	require.NoError(t, err)
	// snippet:start canupdate
	template := func(name string, spec v1beta2.MemMachineSpec) *unstructured.Unstructured {
		tmpl := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		tmpl.Spec.Template.Spec = spec
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tmpl)
		require.NoError(t, err)
		obj := &unstructured.Unstructured{Object: u}
		obj.SetGroupVersionKind(v1beta2.GroupVersion.WithKind("MemMachineTemplate"))
		return obj
	}
	small := v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorSmall}
	tests := []struct {
		name      string
		desired   v1beta2.MemMachineSpec
		wantPatch string // the JSON patch of the current template; "" when Cluster API must roll out
		wantMsg   string
	}{
		{"a new flavor", v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorLarge},
			`[{"op":"replace","path":"/spec/template/spec/flavor","value":"large"}]`, ""},
		{"new tags", v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorSmall, Tags: map[string]string{"team": "blue"}},
			`[{"op":"add","path":"/spec/template/spec/tags","value":{"team":"blue"}}]`, ""},
		{"a new image", v1beta2.MemMachineSpec{Image: "ubuntu-26.04", Flavor: v1beta2.FlavorLarge}, "",
			`MemMachineTemplate spec.template.spec.image cannot be updated in place by "memcloud"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ext.CanUpdateMachineSet(context.Background(), &inplace.CanUpdateMachineSetRequest{
				Current: inplace.MachineSetObjects{InfrastructureMachineTemplate: template("workers-1", small)},
				Desired: inplace.MachineSetObjects{InfrastructureMachineTemplate: template("workers-2", tt.desired)},
			})
			require.Equal(t, inplace.ResponseStatusSuccess, resp.Status, "declining is a Success too")
			if tt.wantPatch == "" {
				assert.False(t, resp.InfrastructureMachineTemplatePatch.IsDefined())
				assert.Contains(t, resp.Message, tt.wantMsg)
				return
			}
			assert.JSONEq(t, tt.wantPatch, string(resp.InfrastructureMachineTemplatePatch.Patch))
		})
	}
	// snippet:end canupdate
}
