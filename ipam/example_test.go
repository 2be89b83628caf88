package ipam_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile/step"
)

// An InfraMachine reconciler's step claims an address for eth0 from an InClusterIPPool, waits for the IPAM
// provider, then uses the address; its delete path releases the claim before it removes its finalizer.
func ExampleClaimer() {
	ctx := context.Background()
	m := &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "worker-1", UID: "uid-1"}}
	c := fake.NewClientBuilder().WithScheme(testtypes.Scheme()).WithObjects(m).Build()

	claimer, err := ipam.NewClaimer(c)
	if err != nil {
		panic(err)
	}
	reqs := []ipam.Request{{Device: "eth0", Pool: ipam.PoolRef{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "nodes"}}}
	ips, res, err := staticIPs(ctx, claimer, m, "prod", reqs)
	fmt.Println(ips, res.Done, res.Reason, res.RequeueAfter, err)
	fmt.Println(res.Message)

	playIPAMProvider(ctx, c, "worker-1-eth0-0", "10.0.0.10", 24, "10.0.0.1")
	ips, res, err = staticIPs(ctx, claimer, m, "prod", reqs)
	fmt.Println(ips, res.Done, err)

	res, err = claimer.Unclaim(ctx, m, reqs)
	fmt.Println("released:", res.Done, err)
	// Output:
	// [] false WaitingForIPAddresses 10s <nil>
	// waiting for the IP address of claim worker-1-eth0-0
	// [10.0.0.10/24] true <nil>
	// released: true <nil>
}

// staticIPs is the part of a step's Reconcile that claims the machine's addresses before it creates its
// instance: it returns the step's Result and error as Claim gives them until every address is allocated.
func staticIPs(ctx context.Context, claimer *ipam.Claimer, machine client.Object, cluster string, reqs []ipam.Request) ([]netip.Prefix, step.Result, error) {
	// snippet:start claim
	addrs, res, err := claimer.Claim(ctx, machine, cluster, reqs)
	if err != nil || !res.Done {
		return nil, res, err // WaitingForIPAddresses, or a terminal InvalidIPAddress
	}
	// snippet:end claim
	ips := make([]netip.Prefix, 0, len(addrs))
	for _, a := range addrs {
		ips = append(ips, a.Prefixed())
	}
	return ips, res, nil
}

// Claim names are <machine>-<device>-<index>; a name beyond 253 characters keeps its start and end around a hash.
func ExampleClaimName() {
	fmt.Println(ipam.ClaimName("worker-1", "eth0", 0))
	fmt.Println(ipam.ClaimName("worker-1", "eth0", 1))
	long := ipam.ClaimName(strings.Repeat("w", 300), "eth1", 0)
	fmt.Println(len(long), long[:4]+"…"+long[len(long)-19:])
	// Output:
	// worker-1-eth0-0
	// worker-1-eth0-1
	// 253 wwww…w-12942a69d6-eth1-0
}

// playIPAMProvider does what an IPAM provider does for the claim name: an IPAddress of the same name, then the
// claim's status.addressRef.
func playIPAMProvider(ctx context.Context, c client.Client, name, addr string, prefix int64, gateway string) {
	claim := ipam.ClaimObject()
	if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: name}, claim); err != nil {
		panic(err)
	}
	ip := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"claimRef": map[string]any{"name": name}, "poolRef": claim.Object["spec"].(map[string]any)["poolRef"],
			"address": addr, "prefix": prefix, "gateway": gateway},
	}}
	ip.SetGroupVersionKind(ipam.AddressGVK)
	ip.SetNamespace("ns")
	ip.SetName(name)
	claim.Object["status"] = map[string]any{"addressRef": map[string]any{"name": name}}
	if err := c.Create(ctx, ip); err != nil {
		panic(err)
	}
	if err := c.Update(ctx, claim); err != nil {
		panic(err)
	}
}
