package inplace_test

import (
	"encoding/json"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/capkit/capkit/inplace"
)

// applyPatch applies patch to current as Cluster API does (github.com/evanphx/json-patch/v5 on the whole
// object) and returns the patched object's field at path.
func applyPatch(t *testing.T, current *unstructured.Unstructured, p inplace.Patch, path ...string) any {
	t.Helper()
	require.Equal(t, inplace.JSONPatchType, p.PatchType)
	decoded, err := jsonpatch.DecodePatch(p.Patch)
	require.NoError(t, err)
	raw, err := json.Marshal(current)
	require.NoError(t, err)
	patched, err := decoded.Apply(raw)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, utiljson.Unmarshal(patched, &m))
	v, _, err := unstructured.NestedFieldNoCopy(m, path...)
	require.NoError(t, err)
	return v
}

func TestCanUpdateMachineSet(t *testing.T) {
	tests := []struct {
		name    string
		req     func() *inplace.CanUpdateMachineSetRequest
		patch   string // the JSON patch, "" for none
		message string // part of the message, "" for none
		mutable [][]string
	}{{
		name: "covered: flavor changed",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{"flavor": "m1", "image": "i1"}, obj{"flavor": "m2", "image": "i1"})
		},
		patch: `[{"op":"replace","path":"/spec/template/spec/flavor","value":"m2"}]`,
	}, {
		name: "partly covered: flavor and image changed, only flavor mutable",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{"flavor": "m1", "image": "i1"}, obj{"flavor": "m2", "image": "i2"})
		},
		message: `MemMachineTemplate spec.template.spec.image cannot be updated in place by "memcloud"`,
	}, {
		name:    "not covered: image changed",
		req:     func() *inplace.CanUpdateMachineSetRequest { return setRequest(obj{"image": "i1"}, obj{"image": "i2"}) },
		message: "spec.template.spec.image cannot",
	}, {
		name: "mutable subtree: tags changed, added and removed are replaced whole",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{"tags": obj{"a": "1", "b": "2", "kubernetes.io/role": "x"}}, obj{"tags": obj{"a": "1", "b": "3", "c": "4"}})
		},
		patch: `[{"op":"replace","path":"/spec/template/spec/tags","value":{"a":"1","b":"3","c":"4"}}]`,
	}, {
		name: "a JSON pointer escapes ~ and / in field names",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{"a/b": obj{"c~d": "1"}}, obj{"a/b": obj{"c~d": "2"}})
		},
		mutable: [][]string{{"a/b", "c~d"}},
		patch:   `[{"op":"replace","path":"/spec/template/spec/a~1b/c~0d","value":"2"}]`,
	}, {
		name: "nested mutable subtree: tags added whole",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{"flavor": "m1"}, obj{"flavor": "m1", "tags": obj{"a": "1"}})
		},
		patch: `[{"op":"add","path":"/spec/template/spec/tags","value":{"a":"1"}}]`,
	}, {
		name:  "nested mutable subtree: tags removed whole",
		req:   func() *inplace.CanUpdateMachineSetRequest { return setRequest(obj{"tags": obj{"a": "1"}}, obj{}) },
		patch: `[{"op":"remove","path":"/spec/template/spec/tags"}]`,
	}, {
		name: "a deeper mutable field does not cover its parent added",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{}, obj{"network": obj{"mtu": int64(9000)}})
		},
		mutable: [][]string{{"network", "mtu"}},
		message: "spec.template.spec.network cannot",
	}, {
		name: "a deeper mutable field covers its own change",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{"network": obj{"mtu": int64(1500)}}, obj{"network": obj{"mtu": int64(9000)}})
		},
		mutable: [][]string{{"network", "mtu"}},
		patch:   `[{"op":"replace","path":"/spec/template/spec/network/mtu","value":9000}]`,
	}, {
		name: "field removed",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{"flavor": "m1", "image": "i1"}, obj{"image": "i1"})
		},
		patch: `[{"op":"remove","path":"/spec/template/spec/flavor"}]`,
	}, {
		name:  "field set to null",
		req:   func() *inplace.CanUpdateMachineSetRequest { return setRequest(obj{"flavor": "m1"}, obj{"flavor": nil}) },
		patch: `[{"op":"replace","path":"/spec/template/spec/flavor","value":null}]`,
	}, {
		name: "a list is replaced whole",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{"tags": []any{"a", "b"}}, obj{"tags": []any{"b"}})
		},
		patch: `[{"op":"replace","path":"/spec/template/spec/tags","value":["b"]}]`,
	}, {
		name: "only fields Cluster API ignores changed on the MachineSet",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			spec := machineSpec("v1.35.0", "t2")
			spec["taints"] = []any{obj{"key": "k", "effect": "NoSchedule"}}
			spec["minReadySeconds"] = int64(10)
			spec["deletion"] = obj{"nodeDrainTimeoutSeconds": int64(30)}
			r.Desired.MachineSet = machineSet("md-new", spec)
			return r
		},
		patch: `[{"op":"replace","path":"/spec/template/spec/flavor","value":"m2"}]`,
	}, {
		name: "foreign kind",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Desired.InfrastructureMachineTemplate.SetKind("DockerMachineTemplate")
			return r
		},
		message: `desired infrastructureMachineTemplate "DockerMachineTemplate" of group "infrastructure.memcloud.capkit.io" is not handled by "memcloud"`,
	}, {
		name: "foreign group",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Current.InfrastructureMachineTemplate.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta2")
			return r
		},
		message: `current infrastructureMachineTemplate "MemMachineTemplate" of group "infrastructure.cluster.x-k8s.io" is not handled`,
	}, {
		name: "no infrastructure template",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Current.InfrastructureMachineTemplate = nil
			return r
		},
		message: "the request has no infrastructureMachineTemplate",
	}, {
		name: "MachineSet version changed",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Desired.MachineSet = machineSet("md-new", machineSpec("v1.36.0", "t2"))
			return r
		},
		message: `MachineSet spec.template.spec.version cannot be updated in place by "memcloud"`,
	}, {
		name: "MachineSet failure domain changed",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			spec := machineSpec("v1.35.0", "t2")
			spec["failureDomain"] = "zone-b"
			r.Desired.MachineSet = machineSet("md-new", spec)
			return r
		},
		message: "MachineSet spec.template.spec.failureDomain cannot",
	}, {
		name: "bootstrap template changed",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Desired.BootstrapConfigTemplate = bootstrapTemplate("kc2", obj{"files": []any{obj{"path": "/etc/b"}}})
			return r
		},
		message: "KubeadmConfigTemplate spec.template.spec.files cannot",
	}, {
		name: "bootstrap template only in desired",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Current.BootstrapConfigTemplate = nil
			return r
		},
		message: "bootstrapConfigTemplate is only in desired",
	}, {
		name: "no bootstrap templates",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Current.BootstrapConfigTemplate, r.Desired.BootstrapConfigTemplate = nil, nil
			return r
		},
		patch: `[{"op":"replace","path":"/spec/template/spec/flavor","value":"m2"}]`,
	}, {
		name: "identical",
		req: func() *inplace.CanUpdateMachineSetRequest {
			return setRequest(obj{"flavor": "m1"}, obj{"flavor": "m1"})
		},
	}, {
		name: "spec.template.spec is not an object",
		req: func() *inplace.CanUpdateMachineSetRequest {
			r := setRequest(obj{"flavor": "m1"}, obj{"flavor": "m1"})
			r.Desired.InfrastructureMachineTemplate.Object["spec"] = "oops"
			return r
		},
		message: "MemMachineTemplate spec.template.spec cannot",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config()
			if tt.mutable != nil {
				cfg.Mutable = tt.mutable
			}
			req := tt.req()
			resp := cfg.CanUpdateMachineSet(t.Context(), req)

			assert.Equal(t, inplace.ResponseStatusSuccess, resp.Status, "declining is never a Failure")
			assert.False(t, resp.MachineSetPatch.IsDefined())
			assert.False(t, resp.BootstrapConfigTemplatePatch.IsDefined())
			if tt.message == "" {
				assert.Empty(t, resp.Message)
			} else {
				assert.Contains(t, resp.Message, tt.message)
			}
			if tt.patch == "" {
				assert.False(t, resp.InfrastructureMachineTemplatePatch.IsDefined())
				return
			}
			require.True(t, resp.InfrastructureMachineTemplatePatch.IsDefined())
			assert.JSONEq(t, tt.patch, string(resp.InfrastructureMachineTemplatePatch.Patch))
			got := applyPatch(t, req.Current.InfrastructureMachineTemplate, resp.InfrastructureMachineTemplatePatch, "spec", "template", "spec")
			assert.Equal(t, req.Desired.InfrastructureMachineTemplate.Object["spec"].(obj)["template"].(obj)["spec"], got)
		})
	}
}

func TestCanUpdateMachineSetDoesNotChangeTheRequest(t *testing.T) {
	req := setRequest(obj{"flavor": "m1", "tags": obj{"a": "1"}}, obj{"flavor": "m2", "tags": obj{"b": "2"}})
	before, err := json.Marshal(req)
	require.NoError(t, err)
	config().CanUpdateMachineSet(t.Context(), req)
	after, err := json.Marshal(req)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after))
}

// machineRequest is a CanUpdateMachine request for one Machine whose InfraMachine spec goes from cur to des.
func machineRequest(cur, des obj) *inplace.CanUpdateMachineRequest {
	machine := func(providerID string) *unstructured.Unstructured {
		spec := machineSpec("v1.35.0", "m-1")
		spec["providerID"] = providerID
		return u("cluster.x-k8s.io/v1beta2", "Machine", "m-1", spec)
	}
	return &inplace.CanUpdateMachineRequest{
		Current: inplace.MachineObjects{
			Machine:               machine("memcloud://i-1"),
			InfrastructureMachine: u(group+"/v1beta2", "MemMachine", "m-1", cur),
			BootstrapConfig:       u("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfig", "m-1", obj{"files": []any{}}),
		},
		Desired: inplace.MachineObjects{
			Machine:               machine(""),
			InfrastructureMachine: u(group+"/v1beta2", "MemMachine", "m-1", des),
			BootstrapConfig:       u("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfig", "m-1", obj{"files": []any{}}),
		},
	}
}

func TestCanUpdateMachine(t *testing.T) {
	tests := []struct {
		name    string
		req     func() *inplace.CanUpdateMachineRequest
		patch   string
		message string
	}{{
		name: "covered: flavor changed, Machine differs only in ignored fields",
		req: func() *inplace.CanUpdateMachineRequest {
			return machineRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
		},
		patch: `[{"op":"replace","path":"/spec/flavor","value":"m2"}]`,
	}, {
		name: "covered: tags",
		req: func() *inplace.CanUpdateMachineRequest {
			return machineRequest(obj{"tags": obj{"a": "1"}}, obj{"tags": obj{"a": "2"}})
		},
		patch: `[{"op":"replace","path":"/spec/tags","value":{"a":"2"}}]`,
	}, {
		name:    "not covered",
		req:     func() *inplace.CanUpdateMachineRequest { return machineRequest(obj{"image": "i1"}, obj{"image": "i2"}) },
		message: `MemMachine spec.image cannot be updated in place by "memcloud"`,
	}, {
		name: "Machine version changed",
		req: func() *inplace.CanUpdateMachineRequest {
			r := machineRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			_ = unstructured.SetNestedField(r.Desired.Machine.Object, "v1.36.0", "spec", "version")
			return r
		},
		message: "Machine spec.version cannot",
	}, {
		name: "bootstrap config changed",
		req: func() *inplace.CanUpdateMachineRequest {
			r := machineRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Desired.BootstrapConfig.Object["spec"] = obj{"files": []any{obj{"path": "/etc/x"}}}
			return r
		},
		message: "KubeadmConfig spec.files cannot",
	}, {
		name: "bootstrap config only in current",
		req: func() *inplace.CanUpdateMachineRequest {
			r := machineRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Desired.BootstrapConfig = nil
			return r
		},
		message: "bootstrapConfig is only in current",
	}, {
		name: "foreign kind",
		req: func() *inplace.CanUpdateMachineRequest {
			r := machineRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"})
			r.Current.InfrastructureMachine.SetKind("MemMachineTemplate")
			return r
		},
		message: `current infrastructureMachine "MemMachineTemplate" of group "infrastructure.memcloud.capkit.io" is not handled by "memcloud", which handles "MemMachine"`,
	}, {
		name: "identical",
		req: func() *inplace.CanUpdateMachineRequest {
			return machineRequest(obj{"flavor": "m1"}, obj{"flavor": "m1"})
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req()
			resp := config().CanUpdateMachine(t.Context(), req)

			assert.Equal(t, inplace.ResponseStatusSuccess, resp.Status)
			assert.False(t, resp.MachinePatch.IsDefined())
			assert.False(t, resp.BootstrapConfigPatch.IsDefined())
			if tt.message == "" {
				assert.Empty(t, resp.Message)
			} else {
				assert.Contains(t, resp.Message, tt.message)
			}
			if tt.patch == "" {
				assert.False(t, resp.InfrastructureMachinePatch.IsDefined())
				return
			}
			assert.JSONEq(t, tt.patch, string(resp.InfrastructureMachinePatch.Patch))
			got := applyPatch(t, req.Current.InfrastructureMachine, resp.InfrastructureMachinePatch, "spec")
			assert.Equal(t, req.Desired.InfrastructureMachine.Object["spec"], got)
		})
	}
}
