package inplace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/inplace"
)

// memcloudConfig is what a provider declares: its kind, the fields it changes on a running machine, and how.
// Reader is the manager's client (mgr.GetClient()) in a provider; here an empty API server.
func memcloudConfig() inplace.Config {
	return inplace.Config{
		Name:                "memcloud",
		InfraMachine:        schema.GroupKind{Group: "infrastructure.memcloud.capkit.io", Kind: "MemMachine"},
		InfraMachineVersion: "v1beta2",
		Reader:              fake.NewClientBuilder().Build(),
		Mutable:             [][]string{{"flavor"}, {"tags"}},
		Update: func(ctx context.Context, desired *unstructured.Unstructured) (inplace.Progress, error) {
			flavor, _, _ := unstructured.NestedString(desired.Object, "spec", "flavor")
			// A real provider reads the instance, starts a resize if it is not flavor yet, and returns.
			return inplace.Progress{Done: true, Message: "flavor is " + flavor}, nil
		},
	}
}

// A provider serves the hooks; Cluster API discovers three handlers. In a manager, inplace.Register(
// mgr.GetWebhookServer(), cfg) serves them beside the admission webhooks instead.
func ExampleNewHandler() {
	h, err := inplace.NewHandler(memcloudConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery", "application/json",
		strings.NewReader(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoveryRequest"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = resp.Body.Close() }()
	var discovery inplace.DiscoveryResponse
	if err := json.NewDecoder(resp.Body).Decode(&discovery); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, discovery.Status)
	for _, h := range discovery.Handlers {
		fmt.Println(h.Name, h.RequestHook.Hook, *h.TimeoutSeconds, *h.FailurePolicy)
	}
	// Output:
	// 200 Success
	// memcloud-can-update-machine CanUpdateMachine 10 Fail
	// memcloud-can-update-machineset CanUpdateMachineSet 10 Fail
	// memcloud-update-machine UpdateMachine 10 Fail
}

// A MachineDeployment moves from template t1 to t2: a new flavor is made in place, a new image is not.
func ExampleConfig_CanUpdateMachineSet() {
	tmpl := func(name string, spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "infrastructure.memcloud.capkit.io/v1beta2", "kind": "MemMachineTemplate",
			"metadata": map[string]any{"name": name, "namespace": "default"},
			"spec":     map[string]any{"template": map[string]any{"spec": spec}},
		}}
	}
	cfg := memcloudConfig()
	for _, image := range []string{"ubuntu-24.04", "ubuntu-26.04"} {
		resp := cfg.CanUpdateMachineSet(context.Background(), &inplace.CanUpdateMachineSetRequest{
			Current: inplace.MachineSetObjects{InfrastructureMachineTemplate: tmpl("t1", map[string]any{"flavor": "m1", "image": "ubuntu-24.04"})},
			Desired: inplace.MachineSetObjects{InfrastructureMachineTemplate: tmpl("t2", map[string]any{"flavor": "m2", "image": image})},
		})
		if resp.InfrastructureMachineTemplatePatch.IsDefined() {
			fmt.Printf("%s, patch %s\n", resp.Status, resp.InfrastructureMachineTemplatePatch.Patch)
		} else {
			fmt.Printf("%s, no patch: %s\n", resp.Status, resp.Message)
		}
	}
	// Output:
	// Success, patch [{"op":"replace","path":"/spec/template/spec/flavor","value":"m2"}]
	// Success, no patch: MemMachineTemplate spec.template.spec.image cannot be updated in place by "memcloud"
}
