// Package manager holds what every provider's cmd/manager writes again: the standard command-line flags of a
// Cluster API provider's controller manager (namespace, watch filter, leader election, metrics and health
// endpoints, webhook server, poll and resync periods, logging), their validation, the controller-runtime
// options they make, and the health and readiness checks.
//
//	var f manager.Flags
//	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
//	f.Bind(fs, manager.Defaults{LeaderElectionID: "mycloud-controller-manager.mycloud.example.com"})
//	if err := fs.Parse(os.Args[1:]); err != nil { ... }
//	if err := f.Validate(); err != nil { ... }
//	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), f.Options(scheme))
//	... set up the controllers with f.PollInterval, f.ResyncPeriod, f.WatchFilter ...
//	if err := manager.AddChecks(mgr); err != nil { ... }
package manager
