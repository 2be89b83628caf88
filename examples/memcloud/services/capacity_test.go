package services_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/services"
)

func TestTemplateCapacity(t *testing.T) {
	tests := []struct {
		flavor      v1beta2.Flavor
		cpu, memory string
		wantErr     string
	}{
		{v1beta2.FlavorSmall, "1", "2Gi", ""},
		{"", "2", "8Gi", ""}, // the default flavor, medium
		{v1beta2.FlavorLarge, "8", "32Gi", ""},
		{"huge", "", "", `spec.template.spec.flavor "huge" is not one of`},
	}
	for _, tt := range tests {
		t.Run(string(tt.flavor), func(t *testing.T) {
			tmpl := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "workers"}}
			tmpl.Spec.Template.Spec.Flavor = tt.flavor
			c, err := services.TemplateCapacity(tmpl)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.cpu, c.Capacity.Cpu().String())
			assert.Equal(t, tt.memory, c.Capacity.Memory().String())
			assert.Equal(t, contract.NodeInfo{Architecture: contract.ArchitectureAmd64, OperatingSystem: "linux"}, c.NodeInfo)
		})
	}
}
