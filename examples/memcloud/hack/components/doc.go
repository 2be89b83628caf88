// Command components writes memcloud's clusterctl infrastructure-components.yaml from the files controller-gen
// generates in the config folder. They are the CRDs, RBAC role and webhook configurations. It uses package
// github.com/capkit/capkit/release/components, and `make generate` runs it after controller-gen:
//
//	go run ./examples/memcloud/hack/components [-config examples/memcloud/config] [-o FILE]
//
// Every object gets the label cluster.x-k8s.io/provider: infrastructure-memcloud, and every namespaced object
// lives in the Namespace memcloud-system (clusterctl moves them to the target namespace of clusterctl init).
// The manager's image is the clusterctl variable ${MEMCLOUD_IMAGE:=docker.io/capkit/memcloud:dev}, a
// canonical reference, as clusterctl init requires (capkit/memcloud:dev is refused). The webhook serving
// certificate comes from cert-manager, which clusterctl init installs.
//
// `make generate` also runs it on the folder of the old release v0.1.0 (contract v1beta1, API version v1beta1
// only, no admission webhooks), whose CRDs and role it generates first:
//
//	go run ./examples/memcloud/hack/components -config examples/memcloud/config/releases/v0.1.0
//
// The output is deterministic; a test fails when a committed file is not what this command writes.
package main
