package clusterctl_test

import (
	"fmt"
	"strings"

	"github.com/capkit/capkit/release/clusterctl"
)

func ExampleCheckFiles() {
	metadata, err := clusterctl.ReadYAML(strings.NewReader(`apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- {major: 0, minor: 2, contract: v1beta2}
`), "release/metadata.yaml")
	if err != nil {
		panic(err)
	}
	// A CRD labelled for contract v1beta1 only, in the v1beta1 shape.
	crds, err := clusterctl.ReadYAML(strings.NewReader(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: memmachines.infrastructure.example.io, labels: {cluster.x-k8s.io/v1beta1: v1alpha1}}
spec:
  group: infrastructure.example.io
  names: {kind: MemMachine, listKind: MemMachineList, plural: memmachines}
  scope: Namespaced
  versions:
  - {name: v1alpha1, served: true, storage: true, subresources: {status: {}}, schema: {openAPIV3Schema: {type: object, properties: {
      spec: {type: object, properties: {providerID: {type: string}}}, status: {type: object, properties: {ready: {type: boolean}}}}}}}
`), "release/crds.yaml")
	if err != nil {
		panic(err)
	}
	findings, err := clusterctl.CheckFiles(metadata, crds)
	if err != nil {
		panic(err)
	}
	for _, f := range findings {
		fmt.Println(f.File, f.Line, f.Rule)
	}
	// Output:
	// release/crds.yaml 1 metadata.crd-contract
}

func ExampleReadYAML() {
	_, err := clusterctl.ReadYAML(strings.NewReader("apiVersion: v1\nkind: ConfigMap\n---\n- not: a map\n"), "objects.yaml")
	fmt.Println(err)
	// Output:
	// objects.yaml:4: malformed YAML: document is a YAML list, want a map with apiVersion and kind
}

func ExampleScanVariables() {
	vars, issues := clusterctl.ScanVariables([]byte("name: ${CLUSTER_NAME}\nreplicas: ${WORKER_MACHINE_COUNT:=1}\nzone: ${ZONE-a}\n"))
	for _, v := range vars {
		fmt.Println(v.Name, v.HasDefault)
	}
	for _, is := range issues {
		fmt.Println(is.Line, is.Rule)
	}
	// Output:
	// CLUSTER_NAME false
	// WORKER_MACHINE_COUNT true
	// ZONE-a false
	// 3 clusterctl.variable-unsupported
}

// A ClusterClass definition must hold every template its ClusterClass references, with no namespaces and no
// clusterctl variables.
func ExampleCheckFiles_clusterClass() {
	f, err := clusterctl.ReadYAML(strings.NewReader(`apiVersion: cluster.x-k8s.io/v1beta2
kind: ClusterClass
metadata:
  name: mem
spec:
  infrastructure:
    templateRef: {apiVersion: infrastructure.example.io/v1alpha1, kind: MemClusterTemplate, name: mem}
  controlPlane:
    templateRef: {apiVersion: controlplane.cluster.x-k8s.io/v1beta2, kind: KubeadmControlPlaneTemplate, name: mem-cp}
---
apiVersion: infrastructure.example.io/v1alpha1
kind: MemClusterTemplate
metadata:
  name: mem
  namespace: default
spec:
  template:
    spec:
      region: ${MEM_REGION}
`), "templates/clusterclass-mem.yaml")
	if err != nil {
		panic(err)
	}
	findings, err := clusterctl.CheckFiles(f)
	if err != nil {
		panic(err)
	}
	for _, fd := range findings {
		fmt.Println(fd.Line, fd.Object, fd.Rule, fd.Path)
	}
	// Output:
	// 1 ClusterClass/mem clusterclass.template-ref spec.controlPlane.templateRef
	// 11 MemClusterTemplate/mem clusterclass.object-namespace metadata.namespace
	// 11 MemClusterTemplate/mem clusterclass.variables spec.template.spec.region
}

// A cluster-scoped kind that no namespaced Cluster can own needs a clusterctl move label on its CRD.
func ExampleCheckFiles_moveLabel() {
	f, err := clusterctl.ReadYAML(strings.NewReader(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: memclusteridentities.infrastructure.example.io
spec:
  group: infrastructure.example.io
  names: {kind: MemClusterIdentity, listKind: MemClusterIdentityList, plural: memclusteridentities}
  scope: Cluster
  versions: [{name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`), "config/crd/bases/identity.yaml")
	if err != nil {
		panic(err)
	}
	findings, err := clusterctl.CheckFiles(f)
	if err != nil {
		panic(err)
	}
	for _, fd := range findings {
		fmt.Println(fd.Rule, fd.Path)
	}
	// Output:
	// crd.move-label metadata.labels
}

// CanonicalImage says what clusterctl init makes of an image reference: it accepts a reference only when it is its
// own canonical form.
func ExampleCanonicalImage() {
	for _, ref := range []string{"capkit/memcloud:dev", "docker.io/capkit/memcloud:dev", "capkit/MemCloud"} {
		canonical, err := clusterctl.CanonicalImage(ref)
		switch {
		case err != nil:
			fmt.Println(err)
		case canonical != ref:
			fmt.Printf("%s: refused, write %s\n", ref, canonical)
		default:
			fmt.Printf("%s: accepted\n", ref)
		}
	}
	// Output:
	// capkit/memcloud:dev: refused, write docker.io/capkit/memcloud:dev
	// docker.io/capkit/memcloud:dev: accepted
	// invalid image reference: repository name "capkit/MemCloud" must be lowercase
}
