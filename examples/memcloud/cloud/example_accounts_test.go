package cloud_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// Two tenants deploy the same cluster with the same idempotency token: each gets its own
// network and neither sees the other's. Once the cloud has accounts, a call without
// credentials is refused.
func ExampleCloud_CreateAccount() {
	ctx := context.Background()
	c, _ := cloud.New(cloud.WithSeed(42))
	credsA, _ := c.CreateAccount("team-a")
	credsB, _ := c.CreateAccount("team-b")
	ctxA := cloud.WithCredentials(ctx, credsA)
	ctxB := cloud.WithCredentials(ctx, credsB)

	spec := cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16", IdempotencyToken: "default/demo/network"}
	netA, _ := c.CreateNetwork(ctxA, spec)
	netB, _ := c.CreateNetwork(ctxB, spec)
	owner, _ := c.AccountOf(netA.ID)
	fmt.Println("networks:", c.Count(cloud.KindNetwork), "same ID:", netA.ID == netB.ID, "owner of A's:", owner)

	_, err := c.GetNetwork(ctxB, netA.ID)
	fmt.Println("B reads A's network:", errors.Is(err, cloud.ErrNotFound))
	_, err = c.GetNetwork(ctx, netA.ID)
	fmt.Println(err)
	s := c.Calls()
	fmt.Println("calls:", s.ByAccount, "refused:", s.Unauthorized)
	// Output:
	// networks: 2 same ID: false owner of A's: team-a
	// B reads A's network: true
	// cannot get network "net-897a193d": unauthorized: GetNetwork without credentials
	// calls: map[team-a:1 team-b:2] refused: 1
}

// Rotated credentials stop working at once; the account keeps its resources.
func ExampleCloud_RotateCredentials() {
	ctx := context.Background()
	c, _ := cloud.New()
	old, _ := c.CreateAccount("team-a")
	net, _ := c.CreateNetwork(cloud.WithCredentials(ctx, old), cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16"})

	fresh, _ := c.RotateCredentials("team-a")
	_, err := c.GetNetwork(cloud.WithCredentials(ctx, old), net.ID)
	fmt.Println(err)
	got, err := c.GetNetwork(cloud.WithCredentials(ctx, fresh), net.ID)
	fmt.Println(got.Name, err)
	// Output:
	// cannot get network "net-43f266e7": unauthorized: GetNetwork with access key "MCAK0AE8D4A99278B613": unknown access key ID
	// demo <nil>
}

// Credentials never print their secret access key.
func ExampleCredentials() {
	creds := cloud.Credentials{AccessKeyID: "MCAK0123456789ABCDEF", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}
	fmt.Println(creds)
	fmt.Printf("%+v\n", creds)
	fmt.Printf("%#v\n", creds)
	fmt.Println(fmt.Errorf("cannot use %v: %w", creds, cloud.ErrUnauthorized))
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false) // json.Marshal writes "\u003credacted\u003e"
	_ = enc.Encode(creds)
	// Output:
	// {MCAK0123456789ABCDEF <redacted>}
	// {AccessKeyID:MCAK0123456789ABCDEF SecretAccessKey:<redacted>}
	// cloud.Credentials{AccessKeyID:"MCAK0123456789ABCDEF", SecretAccessKey:"<redacted>"}
	// cannot use {MCAK0123456789ABCDEF <redacted>}: unauthorized
	// {"AccessKeyID":"MCAK0123456789ABCDEF","SecretAccessKey":"<redacted>"}
}
