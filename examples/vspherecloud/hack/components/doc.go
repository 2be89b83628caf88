// Command components writes vspherecloud's clusterctl infrastructure-components.yaml from the files controller-gen
// generates in the config folder. It uses capkit's package release/components; `make generate` runs it:
//
//	go run ./examples/vspherecloud/hack/components [-config examples/vspherecloud/config] [-o FILE]
//
// Every object gets the label cluster.x-k8s.io/provider: infrastructure-vspherecloud and every namespaced object
// lives in the Namespace vspherecloud-system. The manager's image is
// ${VSPHERECLOUD_IMAGE:=docker.io/capkit/vspherecloud:dev}, a canonical reference, as clusterctl init requires.
package main
