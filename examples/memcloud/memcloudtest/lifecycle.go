package memcloudtest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/reconcile/ensure"
)

// Cluster describes a memcloud cluster for LifecycleSpec.
type Cluster struct {
	// Namespace and Name name the Cluster and its MemCluster.
	Namespace, Name string
	// ControlPlane and Workers are how many Machines of each role to create.
	ControlPlane, Workers int
	// FailureDomains are the MemCluster's spec.failureDomains; the MemMachines are spread over them in
	// the order of lifecycle.Driver.MachineNames.
	FailureDomains []string
	// Identity names the MemClusterIdentity of the MemCluster (spec.identityRef); empty for none.
	Identity string
}

// LifecycleSpec returns the lifecycle.Spec of c with memcloud's kinds and objects, kubeadm-style
// bootstrap data (BootstrapData), PlayCAPI and a poll interval of 50ms; leaks is usually
// Provider.LeakChecker. The caller may change the result (Timeout, OnProvisioned, OnPoll) before use.
func LifecycleSpec(c Cluster, leaks lifecycle.LeakChecker) lifecycle.Spec {
	return lifecycle.Spec{
		Namespace: c.Namespace, ClusterName: c.Name,
		InfraClusterGVK: v1beta2.GroupVersion.WithKind("MemCluster"), InfraMachineGVK: v1beta2.GroupVersion.WithKind("MemMachine"),
		InfraCluster: func(_, _ string) (client.Object, error) {
			mc := &v1beta2.MemCluster{Spec: v1beta2.MemClusterSpec{FailureDomains: slices.Clone(c.FailureDomains)}}
			if c.Identity != "" {
				mc.Spec.IdentityRef = &identity.Ref{Kind: v1beta2.MemClusterIdentityKind, Name: c.Identity}
			}
			return mc, nil
		},
		InfraMachine: func(_, name string, _ bool) (client.Object, error) {
			mm := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Name: name}}
			if len(c.FailureDomains) > 0 {
				i, err := c.machineIndex(name)
				if err != nil {
					return nil, err
				}
				mm.Spec.FailureDomain = c.FailureDomains[i%len(c.FailureDomains)]
			}
			return mm, nil
		},
		ControlPlaneMachines: c.ControlPlane, WorkerMachines: c.Workers,
		BootstrapData: lifecycle.KubeadmBootstrapData(c.Name, BootstrapTokenMarker, "memcloud://{{ ds.meta_data.instance_id }}"),
		PlayCAPI:      true,
		PollInterval:  50 * time.Millisecond,
		LeakChecker:   leaks,
	}
}

// machineIndex returns the position of a Machine named "<cluster>-cp-<i>" or "<cluster>-md-<i>" among
// all Machines, control plane first.
func (c Cluster) machineIndex(name string) (int, error) {
	rest, cp := strings.CutPrefix(name, c.Name+"-cp-")
	if !cp {
		rest, _ = strings.CutPrefix(name, c.Name+"-md-")
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("cannot place machine %q in a failure domain: want a name %q or %q", name, c.Name+"-cp-<i>", c.Name+"-md-<i>")
	}
	if !cp {
		i += c.ControlPlane
	}
	return i, nil
}

// LeakChecker returns a lifecycle.LeakChecker over memcloud c: a resource is left of a deleted cluster
// when it carries the cluster's services.TagCluster or one of the ownership keys of the query; resources
// created twice for one owner and role are reported too, as "duplicate: ...".
func LeakChecker(c *cloud.Cloud) lifecycle.LeakChecker {
	return lifecycle.LeakCheckerFunc(func(_ context.Context, q lifecycle.LeakQuery) ([]string, error) {
		seen := map[string]bool{}
		var out []string
		add := func(rs []cloud.Resource) {
			for _, r := range rs {
				if !seen[r.ID] {
					seen[r.ID] = true
					out = append(out, fmt.Sprintf("%s %s", r.Kind, r.ID))
				}
			}
		}
		add(c.Leaks(cloud.OwnerTagValue(services.TagCluster), q.Namespace+"/"+q.ClusterName))
		byKey := c.Report(cloud.OwnerTagValue(ensure.TagOwnershipKey)).ByOwner
		for _, k := range q.OwnershipKeys {
			add(byKey[k])
		}
		for _, d := range c.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey) {
			if slices.Contains(q.OwnershipKeys, d.Owner) {
				out = append(out, "duplicate: "+d.String())
			}
		}
		return out, nil
	})
}

// BootstrapTokenMarker is part of every bootstrap data BootstrapData makes, so that tests can assert that
// it appears nowhere but in the cloud's user data.
const BootstrapTokenMarker = "memcloudtest-secret-token"

// BootstrapData returns a kubeadm-style cloud-config for a machine (lifecycle.KubeadmBootstrapData) with a
// fake join token that contains BootstrapTokenMarker.
func BootstrapData(cluster, machine string, controlPlane bool) []byte {
	return lifecycle.KubeadmBootstrapData(cluster, BootstrapTokenMarker, "memcloud://{{ ds.meta_data.instance_id }}")(machine, controlPlane)
}
