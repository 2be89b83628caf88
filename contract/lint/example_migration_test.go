package lint_test

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/capkit/capkit/contract/lint"
)

// prunedCRD is a migration without a conversion webhook: v1beta1 and v1beta2 are labelled, and the storage
// version v1beta1 has no status.initialization, which v1beta2 writes.
const prunedCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: memmachines.infrastructure.example.io
  labels:
    cluster.x-k8s.io/v1beta1: v1beta1
    cluster.x-k8s.io/v1beta2: v1beta2
spec:
  group: infrastructure.example.io
  names: {kind: MemMachine, listKind: MemMachineList, plural: memmachines, singular: memmachine}
  scope: Namespaced
  versions:
  - name: v1beta1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {providerID: {type: string}}}
          status: {type: object, properties: {ready: {type: boolean}}}
  - name: v1beta2
    served: true
    storage: false
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {providerID: {type: string}}}
          status:
            type: object
            properties:
              ready: {type: boolean}
              initialization: {type: object, properties: {provisioned: {type: boolean}}}
`

// A storage version that lacks a field a labelled version writes loses it on every write: one violation says
// which field, which version writes it, and what to change.
func ExampleCheckCRD_storageVersion() {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(prunedCRD), crd); err != nil {
		panic(err)
	}
	for _, v := range lint.CheckCRD(crd) {
		fmt.Printf("%s: %s\n%s\n", v.Rule, v.Path, v.Message)
	}
	// Output:
	// crd.storage-version-fields: spec.versions[v1beta1].schema
	// storage version "v1beta1" has no status.initialization.provisioned, which the labelled versions write: status.initialization.provisioned (version "v1beta2", contract v1beta2); with conversion strategy None the API server prunes every object it stores with the storage version's schema, so these fields are lost: set the storage version to "v1beta2" (storage: true, the +kubebuilder:storageversion marker on its Go type) or add status.initialization.provisioned to version "v1beta1"'s schema
}
