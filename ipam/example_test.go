package ipam_test

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/ipam"
)

// An InfraMachine reconciler claims an address for eth0 from an InClusterIPPool, waits for the IPAM provider,
// then uses the address; its delete path releases the claim before it removes its finalizer.
func ExampleClaimer() {
	ctx := context.Background()
	m := &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "worker-1", UID: "uid-1"}}
	c := fake.NewClientBuilder().WithScheme(testtypes.Scheme()).WithObjects(m).Build()

	claimer, err := ipam.NewClaimer(c)
	if err != nil {
		panic(err)
	}
	reqs := []ipam.Request{{Device: "eth0", Pool: ipam.PoolRef{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "nodes"}}}
	addrs, waiting, err := claimer.Ensure(ctx, m, "prod", reqs)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(addrs), ipam.WaitingMessage(waiting))

	playIPAMProvider(ctx, c, waiting[0], "10.0.0.10", 24, "10.0.0.1")
	addrs, _, _ = claimer.Ensure(ctx, m, "prod", reqs)
	for _, a := range addrs {
		fmt.Println(a.Device, a.Prefixed(), "via", a.Gateway, "from", a.Pool.Name, "claim", a.Claim)
	}

	done, err := claimer.Release(ctx, m, reqs)
	fmt.Println("released:", done, err)
	// Output:
	// 0 waiting for the IP address of claim worker-1-eth0-0
	// eth0 10.0.0.10/24 via 10.0.0.1 from nodes claim worker-1-eth0-0
	// released: true <nil>
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
