package inplace_test

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/inplace"
)

const group = "infrastructure.memcloud.capkit.io"

// obj is a shorthand for nested JSON objects.
type obj = map[string]any

// config covers flavor and tags; Update reports what the live machine's "progress" annotation says. Its
// Reader holds Machine and MemMachine m-1 in namespace default, being updated in place, with no progress.
func config() inplace.Config {
	return inplace.Config{
		Name:                "memcloud",
		InfraMachine:        schema.GroupKind{Group: group, Kind: "MemMachine"},
		InfraMachineVersion: "v1beta2",
		Reader:              apiServer(liveMachine(), liveInfra("")),
		Mutable:             [][]string{{"flavor"}, {"tags"}},
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

// apiServer is a reader of objs.
func apiServer(objs ...*unstructured.Unstructured) client.Reader {
	b := fake.NewClientBuilder()
	for _, o := range objs {
		b = b.WithObjects(o)
	}
	return b.Build()
}

// liveMachine is Machine m-1 of cluster c1 as the API server holds it while Cluster API updates it in place.
func liveMachine() *unstructured.Unstructured {
	m := u("cluster.x-k8s.io/v1beta2", "Machine", "m-1", obj{
		"clusterName":       "c1",
		"infrastructureRef": obj{"apiGroup": group, "kind": "MemMachine", "name": "m-1"},
	})
	m.SetUID("uid-m-1")
	m.SetAnnotations(map[string]string{inplace.UpdateInProgressAnnotation: "", inplace.PendingHooksAnnotation: "UpdateMachine"})
	return m
}

// liveInfra is MemMachine m-1 of Machine m-1, flavor m2, being updated in place, with annotation progress
// unless it is "".
func liveInfra(progress string) *unstructured.Unstructured {
	m := u(group+"/v1beta2", "MemMachine", "m-1", obj{"flavor": "m2"})
	a := map[string]string{inplace.UpdateInProgressAnnotation: ""}
	if progress != "" {
		a["progress"] = progress
	}
	m.SetAnnotations(a)
	m.SetLabels(map[string]string{"cluster.x-k8s.io/cluster-name": "c1"})
	m.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Machine", Name: "m-1", UID: "uid-m-1"}})
	return m
}

// updateRequest is Cluster API's UpdateMachine request for Machine and MemMachine m-1: names, labels,
// annotations and spec.
func updateRequest() *inplace.UpdateMachineRequest {
	return &inplace.UpdateMachineRequest{Desired: inplace.MachineObjects{
		Machine:               u("cluster.x-k8s.io/v1beta2", "Machine", "m-1", machineSpec("v1.35.0", "t2")),
		InfrastructureMachine: u(group+"/v1beta2", "MemMachine", "m-1", obj{"flavor": "m2"}),
	}}
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
