// Command components writes podcloud's clusterctl infrastructure-components.yaml from the files controller-gen
// generates in the config folder. It uses capkit's package release/components; `make generate` runs it:
//
//	go run ./examples/podcloud/hack/components [-config examples/podcloud/config] [-o FILE]
//
// Every object gets the label cluster.x-k8s.io/provider: infrastructure-podcloud and every namespaced object
// lives in the Namespace podcloud-system. The manager's image is ${PODCLOUD_IMAGE:=docker.io/capkit/podcloud:dev}, a
// canonical reference, as clusterctl init requires.
package main
