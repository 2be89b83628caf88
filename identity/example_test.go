package identity_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
