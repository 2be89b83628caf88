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
	fmt.Println(f.WatchFilter, f.PollInterval, f.ResyncPeriod, f.Validate())
	fmt.Println(f.Validate() == nil, (&manager.Flags{WebhookPort: 70000, PollInterval: 1}).Validate())
	// Output:
	// team-a 2s 0s <nil>
	// true invalid --webhook-port 70000: want 1 to 65535
}
