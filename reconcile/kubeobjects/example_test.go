package kubeobjects_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/kubeobjects"
	"github.com/capkit/capkit/scope/scopetest"
)

// A provider whose machines are Pods keeps each machine's bootstrap script in a Secret of the workload
// cluster's namespace. Ensure creates it once with the ownership labels, and finds it by its ID after.
func ExampleNew() {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).Build() // in a provider: a client of the target cluster
	secrets, _ := kubeobjects.New(c, kubeobjects.Kind[string, *corev1.Secret]{
		Object:    &corev1.Secret{},
		List:      &corev1.SecretList{},
		Namespace: "cluster-a",
		Build: func(script string) (*corev1.Secret, error) {
			return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "cluster-a", Name: "m-0-bootstrap"},
				Data: map[string][]byte{"bootstrap.sh": []byte(script)}}, nil
		},
	})
	s := &scopetest.FakeMachineScope[*v1beta2.MemMachine]{FakeObject: scopetest.FakeObject[*v1beta2.MemMachine]{
		Object: &v1beta2.MemMachine{}, OwnershipKeyValue: "k7x2"}}

	first, _ := ensure.Exists(ctx, s, "bootstrap", secrets, ensure.Given("#!/bin/bash\n"))
	second, _ := ensure.Exists(ctx, s, "bootstrap", secrets, ensure.Given("#!/bin/bash\n"))
	fmt.Println(first.Action, second.Action, first.Observed.Name, first.Observed.Labels)
	// Output:
	// Created Found m-0-bootstrap map[capkit.io/ownership-key:k7x2 capkit.io/resource:bootstrap]
}
