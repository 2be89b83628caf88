// Package components builds a provider's infrastructure-components.yaml from what controller-gen generates, without
// kustomize. That is the file clusterctl init applies to install an infrastructure provider.
//
// Build reads the folder Config.ConfigDir, which controller-gen fills:
//
//	crd/bases/*.yaml        the CRDs (controller-gen crd), all in one API group
//	rbac/role.yaml          the single ClusterRole manager-role (controller-gen rbac:roleName=manager-role)
//	webhook/manifests.yaml  the webhook configurations (controller-gen webhook); none when it is missing
//
// and writes, after a "DO NOT EDIT" header naming Config.Generator:
//
//   - the Namespace "<Name>-system" (Config.Namespace);
//   - the CRDs; one with more than one version gets a conversion webhook (spec.conversion strategy Webhook,
//     conversionReviewVersions v1, the Service below at path /convert, where controller-runtime serves
//     conversion) and the annotation cert-manager.io/inject-ca-from naming the Certificate below, while a
//     single-version CRD is left as controller-gen wrote it;
//   - the ClusterRole "<prefix>manager-role" (controller-gen's manager-role), the ServiceAccount
//     "<prefix>manager" and its bindings, the leader-election Role, and the ClusterRole
//     "<prefix>capi-aggregated-role" labelled cluster.x-k8s.io/aggregate-to-manager, which lets Cluster API's
//     controllers read and write the provider's kinds;
//   - the webhook Service "<prefix>webhook-service" and the Deployment "<prefix>controller-manager", whose
//     container "manager" runs /manager from Config.Image with --leader-elect, --health-probe-bind-address=:9440,
//     --webhook-port=9443, --webhook-cert-dir (controller-runtime's default folder) and Config.ManagerArgs;
//   - a cert-manager Issuer and Certificate for the webhook server (clusterctl init installs cert-manager),
//     with or without webhook configurations: the Deployment mounts the Certificate's Secret, and the
//     conversion webhook needs the Service and the Certificate;
//   - the webhook configurations, pointed at the Service, with cert-manager's CA injection annotation.
//
// The prefix is Config.Prefix, "<Name>-" by default. Every object gets the label cluster.x-k8s.io/provider:
// infrastructure-<Name>, and every namespaced object is in the Namespace; clusterctl init moves them to its
// target namespace and replaces the variables, such as the image in "${MEMCLOUD_IMAGE:=docker.io/capkit/memcloud:dev}".
// The output is deterministic, so a test can fail when the committed file is stale.
//
// # Wiring it into make generate
//
// A provider adds a small main package, hack/components, that hands its Config to Main; Main runs Run, which
// takes -config DIR (default Config.ConfigDir) and -o FILE (default DIR/infrastructure-components.yaml):
//
//	// Command components writes config/infrastructure-components.yaml.
//	package main
//
//	import "github.com/capkit/capkit/release/components"
//
//	func main() {
//		components.Main(components.Config{
//			Name:      "memcloud",
//			Image:     "${MEMCLOUD_IMAGE:=docker.io/capkit/memcloud:dev}",
//			ConfigDir: "config",
//			Generator: "go run ./hack/components",
//		})
//	}
//
// and runs it in the generate target of its Makefile, after controller-gen:
//
//	generate:
//		controller-gen crd webhook rbac:roleName=manager-role paths=./... \
//		  output:crd:artifacts:config=config/crd/bases \
//		  output:webhook:artifacts:config=config/webhook \
//		  output:rbac:artifacts:config=config/rbac
//		go run ./hack/components
//
// The file then passes the components checks of github.com/capkit/capkit/release/clusterctl (CheckFiles). Before
// v0.2.0 this package was contract/components, which now forwards here.
package components
