// Command manager is memcloud's controller manager. It runs the MemCluster and MemMachine controllers and the admission
// webhooks of memcloud's API, wired the way a provider's Kubebuilder main.go wires capkit.
//
// memcloud is an in-memory example cloud: the manager creates it in-process with cloud.New, so every cloud
// resource lives in the manager's memory and is gone when the process stops. A real provider builds its cloud
// SDK client here instead, from flags and credentials.
//
//	manager [--namespace NS] [--watch-filter VALUE] [--leader-elect] [--metrics-bind-address ADDR]
//	        [--health-probe-bind-address :9440] [--webhook-port 9443] [--webhook-cert-dir DIR]
package main
