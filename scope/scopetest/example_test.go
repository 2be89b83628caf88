package scopetest_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/scope/scopetest"
)

// A CountingClient counts what goes through it; Reset starts the count of the next reconcile.
func ExampleCountingClient() {
	ctx := context.Background()
	c := fake.NewClientBuilder().Build()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"}}
	// snippet:start count
	cc := scopetest.NewCountingClient(c)
	_ = cc.Create(ctx, cm)
	fmt.Println(cc.Writes(), cc.Log()[0].Verb)
	cc.Reset()
	_ = cc.Get(ctx, client.ObjectKeyFromObject(cm), cm)
	fmt.Println(cc.Writes(), cc.Reads())
	// snippet:end count

	// Output:
	// 1 create
	// 0 1
}
