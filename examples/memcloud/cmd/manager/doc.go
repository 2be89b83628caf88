// Command manager is memcloud's controller manager. It runs the MemCluster and MemMachine controllers and the admission
// webhooks of memcloud's API, wired the way a provider's Kubebuilder main.go wires capkit.
//
// memcloud is an in-memory example cloud: the manager creates it in-process with cloud.New, so every cloud
// resource lives in the manager's memory and is gone when the process stops. A real provider builds its cloud
// SDK client here instead, from flags and credentials.
//
//	manager [--namespace NS] [--watch-filter VALUE] [--leader-elect] [--metrics-bind-address ADDR]
//	        [--health-probe-bind-address :9440] [--webhook-port 9443] [--webhook-cert-dir DIR]
//	        [--cloud-seed N] [--async-creates 500ms] [--search-lag 1s] [--no-tokens] [--identity-namespace NS]
//
// By default the in-memory cloud creates at once, lists a new resource in its tag search at once and honours
// idempotency tokens. Three flags make it behave like clouds that are harder to use safely, and the services
// declare to capkit what it then guarantees: --async-creates runs every create as an operation of that
// duration (cloud.WithAsyncCreates), --search-lag makes the tag search list a resource that long after it
// exists (cloud.WithSearchLag), and --no-tokens makes creates ignore their idempotency token
// (cloud.WithoutTokens).
package main
