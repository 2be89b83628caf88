package capacity_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile/capacity"
)

// sizeOf is what a machine of a memcloud flavor offers.
func sizeOf(f v1beta2.Flavor) (contract.MachineTemplateCapacity, error) {
	cpu := map[v1beta2.Flavor]string{v1beta2.FlavorSmall: "2", v1beta2.FlavorMedium: "4", v1beta2.FlavorLarge: "8"}[f]
	if cpu == "" {
		cpu = "2"
	}
	return contract.MachineTemplateCapacity{
		Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
		NodeInfo: contract.NodeInfo{Architecture: contract.ArchitectureAmd64, OperatingSystem: "linux"},
	}, nil
}

// setupCapacity is the package doc's sketch: the capacity controller of memcloud's machine templates.
func setupCapacity(mgr ctrl.Manager) error {
	// snippet:start setup
	r, err := capacity.NewReconcilerFor(mgr.GetClient(), &v1beta2.MemMachineTemplate{},
		func(t *v1beta2.MemMachineTemplate) (contract.MachineTemplateCapacity, error) {
			return sizeOf(t.Spec.Template.Spec.Flavor)
		})
	if err != nil {
		return err
	}
	return r.SetupWithManager(mgr, "memmachinetemplate-capacity")
	// snippet:end setup
}

// TestSetupCapacity registers the package doc's controller with a manager that is never started.
func TestSetupCapacity(t *testing.T) {
	sch := runtime.NewScheme()
	require.NoError(t, v1beta2.AddToScheme(sch))
	mgr, err := ctrl.NewManager(&rest.Config{Host: "https://127.0.0.1:1"}, ctrl.Options{Scheme: sch, Metrics: metricsserver.Options{BindAddress: "0"}})
	require.NoError(t, err)
	require.NoError(t, setupCapacity(mgr))
	small, err := sizeOf(v1beta2.FlavorSmall)
	require.NoError(t, err)
	require.Equal(t, "2", small.Capacity.Cpu().String())
}
