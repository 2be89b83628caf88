package services

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/scope"
)

// ClusterNetwork is what a machine needs of its cluster's infrastructure: cloud IDs recorded by the cluster
// services. A field is empty while the cluster has not created the resource.
type ClusterNetwork struct {
	// SubnetIDs maps a subnet role to the ID of the first subnet of that role.
	SubnetIDs map[v1beta2.SubnetRole]string
	// SecurityGroupID is the ID of the cluster's security group.
	SecurityGroupID string
	// LoadBalancerID is the ID of the API server load balancer.
	LoadBalancerID string
}

// NetworkLookup finds the cluster network of a machine.
type NetworkLookup interface {
	// ClusterNetwork returns the network of the Cluster cluster, in namespace.
	ClusterNetwork(ctx context.Context, namespace string, cluster scope.ClusterInfo) (ClusterNetwork, error)
}

// NetworkLookupFunc adapts a function to NetworkLookup.
type NetworkLookupFunc func(ctx context.Context, namespace string, cluster scope.ClusterInfo) (ClusterNetwork, error)

// ClusterNetwork calls f.
func (f NetworkLookupFunc) ClusterNetwork(ctx context.Context, namespace string, cluster scope.ClusterInfo) (ClusterNetwork, error) {
	return f(ctx, namespace, cluster)
}

// ErrNoMemCluster is wrapped by the errors of MemClusterLookup's lookup when the Cluster does not reference a
// MemCluster that exists: it is capkit's scope.ErrNoInfraCluster.
var ErrNoMemCluster = scope.ErrNoInfraCluster

// MemClusterLookup returns the NetworkLookup that reads the MemCluster named by the Cluster's
// spec.infrastructureRef through r and returns the IDs in its status.resources.
func MemClusterLookup(r client.Reader) NetworkLookup {
	return NetworkLookupFunc(func(ctx context.Context, namespace string, cluster scope.ClusterInfo) (ClusterNetwork, error) {
		mc := &v1beta2.MemCluster{}
		if err := scope.GetInfraCluster(ctx, r, cluster, "MemCluster", mc); err != nil {
			return ClusterNetwork{}, err
		}
		spec := clusterSpec(mc)
		out := ClusterNetwork{SubnetIDs: map[v1beta2.SubnetRole]string{},
			SecurityGroupID: mc.Status.Resources[KeySecurityGroup], LoadBalancerID: mc.Status.Resources[KeyLoadBalancer]}
		for _, role := range []v1beta2.SubnetRole{v1beta2.SubnetRoleControlPlane, v1beta2.SubnetRoleWorker} {
			if sn, ok := spec.Network.Subnet(role); ok && mc.Status.Resources[SubnetKey(sn.Name)] != "" {
				out.SubnetIDs[role] = mc.Status.Resources[SubnetKey(sn.Name)]
			}
		}
		return out, nil
	})
}
