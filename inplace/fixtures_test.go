package inplace_test

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/capkit/capkit/inplace"
)

const group = "infrastructure.memcloud.capkit.io"

// obj is a shorthand for nested JSON objects.
type obj = map[string]any

// config covers flavor and tags; Update reports what the machine's "progress" annotation says.
func config() inplace.Config {
	return inplace.Config{
		Name:         "memcloud",
		InfraMachine: schema.GroupKind{Group: group, Kind: "MemMachine"},
		Mutable:      [][]string{{"flavor"}, {"tags"}},
		Update: func(_ context.Context, desired *unstructured.Unstructured) (inplace.Progress, error) {
			switch desired.GetAnnotations()["progress"] {
			case "done":
				return inplace.Progress{Done: true, Message: "flavor is m2"}, nil
			case "slow":
				return inplace.Progress{RetryAfter: 1500 * time.Millisecond, Message: "resizing"}, nil
			case "error":
				return inplace.Progress{}, errors.New("instance i-123 is stopped")
			case "panic":
				panic("boom")
			}
			return inplace.Progress{Message: "waiting"}, nil
		},
	}
}

// u builds an object of apiVersion, kind and name with spec.
func u(apiVersion, kind, name string, spec any) *unstructured.Unstructured {
	o := obj{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   obj{"name": name, "namespace": "default"},
	}
	if spec != nil {
		o["spec"] = spec
	}
	return &unstructured.Unstructured{Object: o}
}

// template is a MemMachineTemplate with spec.template.spec.
func template(name string, spec obj) *unstructured.Unstructured {
	return u(group+"/v1beta2", "MemMachineTemplate", name, obj{"template": obj{"spec": spec}})
}

// bootstrapTemplate is a KubeadmConfigTemplate with spec.template.spec.
func bootstrapTemplate(name string, spec obj) *unstructured.Unstructured {
	return u("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", name, obj{"template": obj{"spec": spec}})
}

// machineSpec is a Machine spec as Cluster API marshals it, for version and infrastructure template name.
func machineSpec(version, infra string) obj {
	return obj{
		"clusterName": "c1",
		"version":     version,
		"bootstrap":   obj{"configRef": obj{"apiGroup": "bootstrap.cluster.x-k8s.io", "kind": "KubeadmConfigTemplate", "name": "kc-" + infra}},
		"infrastructureRef": obj{
			"apiGroup": group, "kind": "MemMachineTemplate", "name": infra,
		},
	}
}

// machineSet is a MachineSet whose template has spec.
func machineSet(name string, spec obj) *unstructured.Unstructured {
	return u("cluster.x-k8s.io/v1beta2", "MachineSet", name, obj{
		"clusterName": "c1",
		"replicas":    int64(3),
		"template":    obj{"spec": spec},
	})
}

// setRequest is a CanUpdateMachineSet request from an old MachineSet on template t1 to a new one on t2.
func setRequest(curSpec, desSpec obj) *inplace.CanUpdateMachineSetRequest {
	return &inplace.CanUpdateMachineSetRequest{
		Current: inplace.MachineSetObjects{
			MachineSet:                    machineSet("md-old", machineSpec("v1.35.0", "t1")),
			InfrastructureMachineTemplate: template("t1", curSpec),
			BootstrapConfigTemplate:       bootstrapTemplate("kc", obj{"files": []any{obj{"path": "/etc/a"}}}),
		},
		Desired: inplace.MachineSetObjects{
			MachineSet:                    machineSet("md-new", machineSpec("v1.35.0", "t2")),
			InfrastructureMachineTemplate: template("t2", desSpec),
			BootstrapConfigTemplate:       bootstrapTemplate("kc", obj{"files": []any{obj{"path": "/etc/a"}}}),
		},
	}
}
