package v1beta2_test

import (
	"testing"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/scope"
)

// crdDir is where controller-gen writes the CRDs of this package.
const crdDir = "../../config/crd/bases"

// The infrastructure kinds implement the accessors capkit's scopes use, with one-line methods over their
// fields: the typed scope.ClusterScope[*PodCluster] and scope.MachineScope[*PodMachine] need nothing else.
var (
	_ conditions.Setter                     = &v1beta2.PodCluster{}
	_ contract.ProvisionedAccessor          = &v1beta2.PodCluster{}
	_ contract.ControlPlaneEndpointAccessor = &v1beta2.PodCluster{}
	_ contract.FailureDomainsAccessor       = &v1beta2.PodCluster{}
	_ scope.ResourceIDsAccessor             = &v1beta2.PodCluster{}

	_ conditions.Setter                    = &v1beta2.PodMachine{}
	_ contract.ProvisionedAccessor         = &v1beta2.PodMachine{}
	_ contract.ProviderIDAccessor          = &v1beta2.PodMachine{}
	_ contract.AddressesAccessor           = &v1beta2.PodMachine{}
	_ contract.StatusFailureDomainAccessor = &v1beta2.PodMachine{}
	_ scope.ResourceIDsAccessor            = &v1beta2.PodMachine{}

	_ contract.CapacityAccessor = &v1beta2.PodMachineTemplate{}
)

func TestGoTypesFollowContractV1Beta2(t *testing.T) {
	providertest.AssertTypesConformance(t, contract.V1Beta2, map[lint.Kind]any{
		lint.KindInfraCluster:         &v1beta2.PodCluster{},
		lint.KindInfraMachine:         &v1beta2.PodMachine{},
		lint.KindInfraClusterTemplate: &v1beta2.PodClusterTemplate{},
		lint.KindInfraMachineTemplate: &v1beta2.PodMachineTemplate{},
	})
}

func TestGeneratedCRDsFollowContractV1Beta2(t *testing.T) {
	providertest.AssertCRDConformance(t, crdDir)
}
