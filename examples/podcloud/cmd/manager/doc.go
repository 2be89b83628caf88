// Command manager is podcloud's controller manager. It runs the PodCluster and PodMachine controllers and the admission
// webhooks, in one process. By default the Pods run in the management cluster; --target-kubeconfig names another
// cluster:
//
//	manager [--target-kubeconfig FILE] [--namespace NS] [--watch-filter VALUE] [--leader-elect] ...
//
// Run it with --help for every flag.
package main
