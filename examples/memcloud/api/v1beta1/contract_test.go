package v1beta1_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta1"
	"github.com/capkit/capkit/providertest"
)

func TestGoTypesFollowContractV1Beta1(t *testing.T) {
	providertest.AssertTypesConformance(t, contract.V1Beta1, map[lint.Kind]any{
		lint.KindInfraCluster:         &v1beta1.MemCluster{},
		lint.KindInfraMachine:         &v1beta1.MemMachine{},
		lint.KindInfraMachineTemplate: &v1beta1.MemMachineTemplate{},
	})
}

// The CRDs serve v1beta1, deprecated and not stored, and label it as the API version of contract v1beta1.
func TestCRDsServeV1Beta1(t *testing.T) {
	for _, file := range []string{"memclusters", "memmachines", "memmachinetemplates"} {
		t.Run(file, func(t *testing.T) {
			crds, err := providertest.ReadCRDFiles(filepath.Join("../../config/crd/bases", "infrastructure.memcloud.capkit.io_"+file+".yaml"))
			require.NoError(t, err, "run make generate")
			crd := crds[0]
			assert.Equal(t, map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta2"}, crd.Labels)
			require.Len(t, crd.Spec.Versions, 2)
			v := crd.Spec.Versions[0]
			assert.Equal(t, v1beta1.GroupVersion.Version, v.Name)
			assert.True(t, v.Served)
			assert.False(t, v.Storage)
			assert.True(t, v.Deprecated)
			assert.True(t, crd.Spec.Versions[1].Storage)
		})
	}
}
