package manager_test

import (
	"flag"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/reconcile/manager"
)

// A provider's cmd/manager binds the standard flags with its own defaults, parses and validates them.
func ExampleFlags_Bind() {
	var f manager.Flags
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	f.Bind(fs, manager.Defaults{LeaderElectionID: "mycloud-controller-manager.mycloud.example.com"})
	_ = fs.Parse([]string{"--watch-filter=team-a", "--poll-interval=2s"})
	fmt.Println(f.WatchFilter, f.PollInterval, f.ResyncPeriod, f.MaxConcurrentReconciles, f.Validate())
	fmt.Println((&manager.Flags{WebhookPort: 70000, PollInterval: 1, MaxConcurrentReconciles: 1}).Validate())
	// Output:
	// team-a 2s 0s 10 <nil>
	// invalid --webhook-port 70000: want 1 to 65535
}

// Parse reads the standard flags and the provider's own; ReconcileOptions turns them into the options every
// reconciler of the manager gets.
func ExampleFlags_ReconcileOptions() {
	var f manager.Flags
	var endpoint string
	err := f.Parse([]string{"--watch-filter=team-a", "--cloud-qps=20", "--endpoint=https://cloud.example.com"},
		manager.Defaults{LeaderElectionID: "mycloud-controller-manager.mycloud.example.com"},
		func(fs *flag.FlagSet) { fs.StringVar(&endpoint, "endpoint", "", "the cloud's API endpoint") })
	if err != nil {
		fmt.Println(err)
		return
	}
	opts, err := f.ReconcileOptions()
	fmt.Println(endpoint, len(opts), err)
	// Output:
	// https://cloud.example.com 5 <nil>
}

// A main that builds its manager by hand, instead of calling manager.Main, adds the standard health and
// readiness checks with AddChecks after setting up its controllers and webhooks, then starts the manager.
func ExampleAddChecks() {
	var f manager.Flags
	if err := f.Parse([]string{"--health-probe-bind-address=127.0.0.1:0"},
		manager.Defaults{LeaderElectionID: "mycloud-controller-manager.mycloud.example.com"}, nil); err != nil {
		fmt.Println(err)
		return
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		fmt.Println(err)
		return
	}
	cfg := &rest.Config{Host: "https://127.0.0.1:6443"} // a real main: ctrl.GetConfigOrDie()
	mgr, err := ctrl.NewManager(cfg, f.Options(scheme))
	if err != nil {
		fmt.Println(err)
		return
	}
	opts, err := f.ReconcileOptions()
	if err != nil {
		fmt.Println(err)
		return
	}
	// ... set up the provider's controllers with mgr and opts, and its webhooks ...
	if err := manager.AddChecks(mgr); err != nil {
		fmt.Println(err)
		return
	}
	// A real main then runs the manager until SIGTERM:
	//	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil { ... }
	fmt.Println(len(opts), "reconcile options, checks added")
	// Output:
	// 4 reconcile options, checks added
}
