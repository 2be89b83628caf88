package capienv_test

import (
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/capkit/capkit/test/internal/capienv"
)

// The Secret through which Cluster API reaches the workload cluster; with the envtest config, the API
// server doubles as the workload cluster.
func ExampleKubeconfigSecret() {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443"}
	s, err := capienv.KubeconfigSecret("default", "demo", cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name, s.Labels["cluster.x-k8s.io/cluster-name"], s.Type)
	// Output: demo-kubeconfig demo cluster.x-k8s.io/secret
}

// The flags every Cluster API manager gets beside envtest.
func ExampleArgs() {
	for _, a := range capienv.Args("/tmp/kubeconfig", "127.0.0.1:9440", "127.0.0.1:8080", 9443, "/tmp/certs") {
		fmt.Println(a)
	}
	// Output:
	// --kubeconfig=/tmp/kubeconfig
	// --leader-elect=false
	// --health-addr=127.0.0.1:9440
	// --diagnostics-address=127.0.0.1:8080
	// --insecure-diagnostics
	// --webhook-port=9443
	// --webhook-cert-dir=/tmp/certs
}
