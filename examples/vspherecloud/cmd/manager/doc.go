// Command manager is vspherecloud's controller manager: the VSphereCluster and VSphereMachine controllers and the
// admission webhooks (package webhooks), wired the way a provider's Kubebuilder main.go wires capkit
// (reconcile/manager). The webhook server serves the certificate in --webhook-cert-dir, as every capkit manager's
// does; the API server calls the webhooks where config/webhook/manifests.yaml is installed (clusterctl init installs
// it with config/infrastructure-components.yaml).
//
//	manager [--namespace NS] [--watch-filter VALUE] [--leader-elect] [--metrics-bind-address ADDR]
//	        [--health-probe-bind-address :9440] [--webhook-port 9443] [--webhook-cert-dir DIR]
//	        [--poll-interval 10s] [--cloud-qps N] [--cloud-burst N] [--max-concurrent-reconciles N]
//	        [--identity-namespace NS]
//
// vCenter's address, thumbprint and credentials are no flags: each VSphereCluster names its server and its
// credentials, a Secret of its namespace or a VSphereClusterIdentity, and the manager opens one session per server
// and credentials. --identity-namespace is the namespace of the VSphereClusterIdentities' Secrets, vspherecloud's own;
// without it, a VSphereCluster that names an identity is refused. The poll interval is 10s
// by default, how often a clone task, a VM without an address or a VM being powered off is looked at again.
package main
