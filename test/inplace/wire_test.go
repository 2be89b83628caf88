package inplace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/inplace"
)

// These tests speak to capkit's in-place update extension with Cluster API's own hook types
// (sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1) and catalog, the way Cluster API's runtime client does:
// a POST without Content-Type of the request as encoding/json writes it, to catalog.GVHToPath, answered 200
// and decoded with encoding/json into the hook's response type.

const group = "infrastructure.memcloud.capkit.io"

// config's Reader holds Machine m-1 and its MemMachine, which Cluster API is updating in place: Update reports
// what the live MemMachine's "progress" annotation says.
func config(progress string) inplace.Config {
	machine := &clusterv1.Machine{
		TypeMeta: metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine"},
		ObjectMeta: metav1.ObjectMeta{Name: "m-1", Namespace: "default", UID: "uid-m-1", Annotations: map[string]string{
			clusterv1.UpdateInProgressAnnotation: "", runtimev1.PendingHooksAnnotation: "UpdateMachine",
		}},
		Spec: machineSpec("v1.35.0", "t2", 1),
	}
	machine.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: group, Kind: "MemMachine", Name: "m-1"}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(machine)
	if err != nil {
		panic(err)
	}
	infra := object(group+"/v1beta2", "MemMachine", "m-1", map[string]any{"flavor": "m2"})
	infra.SetAnnotations(map[string]string{clusterv1.UpdateInProgressAnnotation: "", "progress": progress})
	infra.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: "m-1", UID: "uid-m-1"}})
	return inplace.Config{
		Name:                "memcloud",
		InfraMachine:        schema.GroupKind{Group: group, Kind: "MemMachine"},
		InfraMachineVersion: "v1beta2",
		Reader:              fake.NewClientBuilder().WithObjects(&unstructured.Unstructured{Object: m}, infra).Build(),
		Mutable:             [][]string{{"flavor"}, {"tags"}},
		Update: func(_ context.Context, desired *unstructured.Unstructured) (inplace.Progress, error) {
			switch desired.GetAnnotations()["progress"] {
			case "done":
				return inplace.Progress{Done: true, Message: "flavor is m2"}, nil
			case "error":
				return inplace.Progress{}, errors.New("instance i-1 is stopped")
			}
			return inplace.Progress{Message: "resizing"}, nil
		},
	}
}

func catalog(t *testing.T) *runtimecatalog.Catalog {
	t.Helper()
	c := runtimecatalog.New()
	require.NoError(t, runtimehooksv1.AddToCatalog(c))
	return c
}

// call sends req to the handler of hook, as Cluster API's runtime client does, and decodes the answer into resp.
func call(t *testing.T, srv *httptest.Server, cat *runtimecatalog.Catalog, hook runtimecatalog.Hook, handler string, req runtime.Object, resp any) []byte {
	t.Helper()
	gvh, err := cat.GroupVersionHook(hook)
	require.NoError(t, err)
	gvk, err := cat.Request(gvh)
	require.NoError(t, err)
	req.GetObjectKind().SetGroupVersionKind(gvk)
	body, err := json.Marshal(req)
	require.NoError(t, err)
	r, err := http.NewRequest(http.MethodPost, srv.URL+runtimecatalog.GVHToPath(gvh, handler)+"?timeout=10s", bytes.NewReader(body))
	require.NoError(t, err)
	res, err := srv.Client().Do(r)
	require.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, string(raw))
	require.NoError(t, json.NewDecoder(bytes.NewReader(raw)).Decode(resp))
	return raw
}

func server(t *testing.T) *httptest.Server { return serverOf(t, config("")) }

func serverOf(t *testing.T, cfg inplace.Config) *httptest.Server {
	t.Helper()
	h, err := inplace.NewHandler(cfg)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// raw is obj as Cluster API puts it into a request.
func raw(t *testing.T, obj *unstructured.Unstructured) runtime.RawExtension {
	t.Helper()
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	return runtime.RawExtension{Raw: b}
}

func object(apiVersion, kind, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{
			"name": name, "namespace": "default",
			"labels":      map[string]any{"cluster.x-k8s.io/cluster-name": "c1"},
			"annotations": map[string]any{"cluster.x-k8s.io/cloned-from-name": name + "-source"},
		},
		"spec": spec,
	}}
}

func infraTemplate(name string, spec map[string]any) *unstructured.Unstructured {
	return object(group+"/v1beta2", "MemMachineTemplate", name, map[string]any{"template": map[string]any{"spec": spec}})
}

func bootstrapTemplate(name string) *unstructured.Unstructured {
	return object("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", name, map[string]any{"template": map[string]any{
		"spec": map[string]any{"files": []any{map[string]any{"path": "/etc/motd", "content": "hi"}}},
	}})
}

// machineSpec fills every field of a Machine spec; those Cluster API ignores for in-place updates depend on n.
func machineSpec(version, infra string, n int32) clusterv1.MachineSpec {
	return clusterv1.MachineSpec{
		ClusterName: "c1",
		Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfigTemplate", Name: "kc-" + infra,
		}},
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: group, Kind: "MemMachineTemplate", Name: infra},
		Version:           version,
		FailureDomain:     "zone-a",
		MinReadySeconds:   ptr.To(n),
		ReadinessGates:    []clusterv1.MachineReadinessGate{{ConditionType: "Gate" + infra, Polarity: clusterv1.PositivePolarityCondition}},
		Deletion: clusterv1.MachineDeletionSpec{
			NodeDrainTimeoutSeconds:        ptr.To(n),
			NodeVolumeDetachTimeoutSeconds: ptr.To(n + 1),
			NodeDeletionTimeoutSeconds:     ptr.To(n + 2),
		},
		Taints: []clusterv1.MachineTaint{{Key: "k", Value: infra, Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways}},
	}
}

func machineSet(name string, spec clusterv1.MachineSpec) clusterv1.MachineSet {
	return clusterv1.MachineSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"cluster.x-k8s.io/cluster-name": "c1"}},
		Spec: clusterv1.MachineSetSpec{
			ClusterName: "c1",
			Replicas:    ptr.To[int32](3),
			Selector:    metav1.LabelSelector{MatchLabels: map[string]string{"md": "md1"}},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"md": "md1"}},
				Spec:       spec,
			},
		},
	}
}

func machineSetRequest(t *testing.T, desiredVersion string) *runtimehooksv1.CanUpdateMachineSetRequest {
	return &runtimehooksv1.CanUpdateMachineSetRequest{
		CommonRequest: runtimehooksv1.CommonRequest{Settings: map[string]string{"region": "eu"}},
		Current: runtimehooksv1.CanUpdateMachineSetRequestObjects{
			MachineSet:                    machineSet("md1-old", machineSpec("v1.35.0", "t1", 10)),
			InfrastructureMachineTemplate: raw(t, infraTemplate("t1", map[string]any{"flavor": "m1", "image": "i1", "tags": map[string]any{"a": "1", "team/x": "y"}})),
			BootstrapConfigTemplate:       raw(t, bootstrapTemplate("kc")),
		},
		Desired: runtimehooksv1.CanUpdateMachineSetRequestObjects{
			MachineSet:                    machineSet("md1-new", machineSpec(desiredVersion, "t2", 20)),
			InfrastructureMachineTemplate: raw(t, infraTemplate("t2", map[string]any{"flavor": "m2", "image": "i1", "tags": map[string]any{"a": "2", "b": "3"}})),
			BootstrapConfigTemplate:       raw(t, bootstrapTemplate("kc")),
		},
	}
}

// specAt decodes raw JSON as Cluster API does and returns the field at path.
func specAt(t *testing.T, raw []byte, path ...string) any {
	t.Helper()
	var m map[string]any
	require.NoError(t, utiljson.Unmarshal(raw, &m))
	v, found, err := unstructured.NestedFieldNoCopy(m, path...)
	require.NoError(t, err)
	require.True(t, found)
	return v
}

// applyPatch applies p to current as Cluster API's patch helper does (json-patch/v5 on the whole object).
func applyPatch(t *testing.T, current []byte, p runtimehooksv1.Patch) []byte {
	t.Helper()
	require.Equal(t, runtimehooksv1.JSONPatchType, p.PatchType)
	decoded, err := jsonpatch.DecodePatch(p.Patch)
	require.NoError(t, err)
	patched, err := decoded.Apply(current)
	require.NoError(t, err)
	return patched
}

func TestCanUpdateMachineSetWire(t *testing.T) {
	cat := catalog(t)
	req := machineSetRequest(t, "v1.35.0")

	// Cluster API's request decodes into capkit's type.
	gvh, err := cat.GroupVersionHook(runtimehooksv1.CanUpdateMachineSet)
	require.NoError(t, err)
	gvk, err := cat.Request(gvh)
	require.NoError(t, err)
	req.SetGroupVersionKind(gvk)
	body, err := json.Marshal(req)
	require.NoError(t, err)
	var ours inplace.CanUpdateMachineSetRequest
	require.NoError(t, json.Unmarshal(body, &ours))
	assert.Equal(t, inplace.APIVersion, ours.APIVersion)
	assert.Equal(t, "CanUpdateMachineSetRequest", ours.Kind)
	assert.Equal(t, map[string]string{"region": "eu"}, ours.Settings)
	assert.Equal(t, "md1-old", ours.Current.MachineSet.GetName())
	assert.Equal(t, "MachineSet", ours.Desired.MachineSet.GetKind())
	version, _, _ := unstructured.NestedString(ours.Desired.MachineSet.Object, "spec", "template", "spec", "version")
	assert.Equal(t, "v1.35.0", version)
	assert.Equal(t, "MemMachineTemplate", ours.Current.InfrastructureMachineTemplate.GetKind())
	assert.Equal(t, "t2", ours.Desired.InfrastructureMachineTemplate.GetName())
	assert.Equal(t, "KubeadmConfigTemplate", ours.Desired.BootstrapConfigTemplate.GetKind())
	want := config("").CanUpdateMachineSet(t.Context(), &ours)

	// capkit's answer over HTTP decodes into Cluster API's response.
	var resp runtimehooksv1.CanUpdateMachineSetResponse
	call(t, server(t), cat, runtimehooksv1.CanUpdateMachineSet, "memcloud-can-update-machineset", req, &resp)
	assert.Equal(t, runtimehooksv1.ResponseStatusSuccess, resp.Status)
	assert.Empty(t, resp.Message)
	assert.False(t, resp.MachineSetPatch.IsDefined(), "only fields Cluster API ignores differ on the MachineSet")
	assert.False(t, resp.BootstrapConfigTemplatePatch.IsDefined())
	require.True(t, resp.InfrastructureMachineTemplatePatch.IsDefined())
	assert.Equal(t, runtimehooksv1.JSONPatchType, resp.InfrastructureMachineTemplatePatch.PatchType)
	assert.Equal(t, want.InfrastructureMachineTemplatePatch.Patch, resp.InfrastructureMachineTemplatePatch.Patch, "the patch bytes cross the wire unchanged")

	// Applied as Cluster API applies it, the patch turns the current template's spec.template.spec into the desired one.
	patched := applyPatch(t, req.Current.InfrastructureMachineTemplate.Raw, resp.InfrastructureMachineTemplatePatch)
	assert.Equal(t,
		specAt(t, req.Desired.InfrastructureMachineTemplate.Raw, "spec", "template", "spec"),
		specAt(t, patched, "spec", "template", "spec"))
}

func TestCanUpdateMachineSetWireDeclines(t *testing.T) {
	var resp runtimehooksv1.CanUpdateMachineSetResponse
	call(t, server(t), catalog(t), runtimehooksv1.CanUpdateMachineSet, "memcloud-can-update-machineset", machineSetRequest(t, "v1.36.0"), &resp)
	assert.Equal(t, runtimehooksv1.ResponseStatusSuccess, resp.Status, "a decline is a Success without patches")
	assert.Contains(t, resp.Message, "MachineSet spec.template.spec.version cannot be updated in place")
	assert.False(t, resp.MachineSetPatch.IsDefined())
	assert.False(t, resp.InfrastructureMachineTemplatePatch.IsDefined())
	assert.False(t, resp.BootstrapConfigTemplatePatch.IsDefined())
}

func TestCanUpdateMachineWire(t *testing.T) {
	machine := func(providerID string, n int32) clusterv1.Machine {
		spec := machineSpec("v1.35.0", "t1", n)
		spec.ProviderID = providerID
		return clusterv1.Machine{
			TypeMeta:   metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine"},
			ObjectMeta: metav1.ObjectMeta{Name: "m-1", Namespace: "default"},
			Spec:       spec,
		}
	}
	kubeadmConfig := object("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfig", "m-1", map[string]any{"files": []any{}})
	req := &runtimehooksv1.CanUpdateMachineRequest{
		CommonRequest: runtimehooksv1.CommonRequest{Settings: map[string]string{"region": "eu"}},
		Current: runtimehooksv1.CanUpdateMachineRequestObjects{
			Machine:               machine("memcloud://i-1", 1),
			InfrastructureMachine: raw(t, object(group+"/v1beta2", "MemMachine", "m-1", map[string]any{"flavor": "m1", "providerID": "memcloud://i-1"})),
			BootstrapConfig:       raw(t, kubeadmConfig),
		},
		Desired: runtimehooksv1.CanUpdateMachineRequestObjects{
			Machine:               machine("", 2),
			InfrastructureMachine: raw(t, object(group+"/v1beta2", "MemMachine", "m-1", map[string]any{"flavor": "m2", "providerID": "memcloud://i-1"})),
			BootstrapConfig:       raw(t, kubeadmConfig),
		},
	}
	var resp runtimehooksv1.CanUpdateMachineResponse
	call(t, server(t), catalog(t), runtimehooksv1.CanUpdateMachine, "memcloud-can-update-machine", req, &resp)
	assert.Equal(t, runtimehooksv1.ResponseStatusSuccess, resp.Status)
	assert.False(t, resp.MachinePatch.IsDefined())
	assert.False(t, resp.BootstrapConfigPatch.IsDefined())
	require.True(t, resp.InfrastructureMachinePatch.IsDefined())
	assert.JSONEq(t, `[{"op":"replace","path":"/spec/flavor","value":"m2"}]`, string(resp.InfrastructureMachinePatch.Patch))
	patched := applyPatch(t, req.Current.InfrastructureMachine.Raw, resp.InfrastructureMachinePatch)
	assert.Equal(t, specAt(t, req.Desired.InfrastructureMachine.Raw, "spec"), specAt(t, patched, "spec"))
}

func TestUpdateMachineWire(t *testing.T) {
	assert.Equal(t, clusterv1.UpdateInProgressAnnotation, inplace.UpdateInProgressAnnotation, "the mark Cluster API sets")
	assert.Equal(t, runtimev1.PendingHooksAnnotation, inplace.PendingHooksAnnotation, "the mark Cluster API sets")
	assert.Equal(t, "UpdateMachine", runtimecatalog.HookName(runtimehooksv1.UpdateMachine), "the hook name it lists")
	tests := []struct {
		progress string
		want     runtimehooksv1.UpdateMachineResponse
	}{
		{"done", runtimehooksv1.UpdateMachineResponse{CommonRetryResponse: runtimehooksv1.CommonRetryResponse{
			CommonResponse: runtimehooksv1.CommonResponse{Status: runtimehooksv1.ResponseStatusSuccess, Message: "flavor is m2"}}}},
		{"", runtimehooksv1.UpdateMachineResponse{CommonRetryResponse: runtimehooksv1.CommonRetryResponse{
			CommonResponse:    runtimehooksv1.CommonResponse{Status: runtimehooksv1.ResponseStatusSuccess, Message: "resizing"},
			RetryAfterSeconds: 5}}},
		{"error", runtimehooksv1.UpdateMachineResponse{CommonRetryResponse: runtimehooksv1.CommonRetryResponse{
			CommonResponse: runtimehooksv1.CommonResponse{Status: runtimehooksv1.ResponseStatusFailure, Message: `cannot update MemMachine "m-1" in place: instance i-1 is stopped`}}}},
	}
	cat := catalog(t)
	for _, tt := range tests {
		t.Run(tt.progress, func(t *testing.T) {
			srv := serverOf(t, config(tt.progress))
			infra := object(group+"/v1beta2", "MemMachine", "m-1", map[string]any{"flavor": "m2"})
			req := &runtimehooksv1.UpdateMachineRequest{Desired: runtimehooksv1.UpdateMachineRequestObjects{
				Machine: clusterv1.Machine{
					TypeMeta:   metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine"},
					ObjectMeta: metav1.ObjectMeta{Name: "m-1", Namespace: "default"},
					Spec:       machineSpec("v1.35.0", "t2", 1),
				},
				InfrastructureMachine: raw(t, infra),
			}}
			var resp runtimehooksv1.UpdateMachineResponse
			body := call(t, srv, cat, runtimehooksv1.UpdateMachine, "memcloud-update-machine", req, &resp)
			resp.TypeMeta = metav1.TypeMeta{}
			assert.Equal(t, tt.want, resp)
			assert.Contains(t, string(body), `"retryAfterSeconds":`)
		})
	}
}

// Discovery answers what Cluster API's runtime client accepts (its validation is internal: the same rules here).
func TestDiscoveryWire(t *testing.T) {
	srv, cat := server(t), catalog(t)
	var resp runtimehooksv1.DiscoveryResponse
	call(t, srv, cat, runtimehooksv1.Discovery, "", &runtimehooksv1.DiscoveryRequest{}, &resp)
	require.Equal(t, runtimehooksv1.ResponseStatusSuccess, resp.Status)

	hooks := map[string]string{}
	for _, h := range resp.Handlers {
		assert.Empty(t, validation.IsDNS1123Label(h.Name), h.Name)
		require.NotNil(t, h.TimeoutSeconds)
		assert.Equal(t, int32(runtimehooksv1.DefaultHandlersTimeoutSeconds), *h.TimeoutSeconds)
		require.NotNil(t, h.FailurePolicy)
		assert.Equal(t, runtimehooksv1.FailurePolicyFail, *h.FailurePolicy)
		gv, err := schema.ParseGroupVersion(h.RequestHook.APIVersion)
		require.NoError(t, err)
		gvh := runtimecatalog.GroupVersionHook{Group: gv.Group, Version: gv.Version, Hook: h.RequestHook.Hook}
		assert.True(t, cat.IsHookRegistered(gvh), gvh.String())
		hooks[h.RequestHook.Hook] = h.Name

		// Each handler answers at the path Cluster API computes for it.
		res, err := srv.Client().Post(srv.URL+runtimecatalog.GVHToPath(gvh, h.Name), "", bytes.NewReader([]byte(`{}`)))
		require.NoError(t, err)
		_ = res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, h.Name)
	}
	assert.Equal(t, map[string]string{
		"CanUpdateMachine":    "memcloud-can-update-machine",
		"CanUpdateMachineSet": "memcloud-can-update-machineset",
		"UpdateMachine":       "memcloud-update-machine",
	}, hooks)
}
