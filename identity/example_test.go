package identity_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/capkit/capkit/identity"
)

// An identity for the teams labelled tenant=blue, and for the namespace "ops" by name.
func ExampleAllows() {
	allowed := &identity.AllowedNamespaces{
		NamespaceList: []string{"ops"},
		Selector:      &metav1.LabelSelector{MatchLabels: map[string]string{"tenant": "blue"}},
	}
	for _, ns := range []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "blue-dev", Labels: map[string]string{"tenant": "blue"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "red-dev", Labels: map[string]string{"tenant": "red"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "ops"}},
	} {
		ok, _ := identity.Allows(allowed, ns)
		fmt.Println(ns.Name, ok)
	}
	empty, _ := identity.Allows(&identity.AllowedNamespaces{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ops"}})
	fmt.Println("{} allows", empty)
	// Output:
	// blue-dev true
	// red-dev false
	// ops true
	// {} allows false
}

// Credentials print their keys, never their values, so a log line or an error cannot leak them.
func ExampleCredentials() {
	creds := identity.NewCredentials(map[string][]byte{"accessKeyID": []byte("AKIA…"), "secretAccessKey": []byte("hunter2")})
	fmt.Println(creds)
	fmt.Printf("%#v\n", creds)
	fmt.Println(string(creds.Get("secretAccessKey")))
	// Output:
	// Credentials{keys: [accessKeyID secretAccessKey], values: <redacted>}
	// Credentials{keys: [accessKeyID secretAccessKey], values: <redacted>}
	// hunter2
}

// Two clusters with the same credentials share a client; a rotation moves one to a new client, and the old one is
// closed once no cluster uses it.
func ExampleClients() {
	type session struct{ n int }
	built := 0
	clients := identity.NewClients(func(_ context.Context, s *session) error {
		fmt.Println("close session", s.n)
		return nil
	})
	login := func(context.Context) (*session, error) {
		built++
		fmt.Println("log in, session", built)
		return &session{n: built}, nil
	}
	ctx := context.Background()
	a, b := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}
	old := identity.NewCredentials(map[string][]byte{"password": []byte("old")})
	rotated := identity.NewCredentials(map[string][]byte{"password": []byte("rotated")})

	_, _ = clients.Get(ctx, a, "https://vcenter.example.com/sdk", old, login)
	_, _ = clients.Get(ctx, b, "https://vcenter.example.com/sdk", old, login)
	_, _ = clients.Get(ctx, a, "https://vcenter.example.com/sdk", rotated, login)
	fmt.Println("open:", clients.Len())
	_, _ = clients.Get(ctx, b, "https://vcenter.example.com/sdk", rotated, login)
	_ = clients.Release(ctx, a)
	_ = clients.Release(ctx, b)
	fmt.Println("open:", clients.Len())
	// Output:
	// log in, session 1
	// log in, session 2
	// open: 2
	// close session 1
	// close session 2
	// open: 0
}
