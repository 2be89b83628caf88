package manager_test

import (
	"flag"
	"fmt"

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
