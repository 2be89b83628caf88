package services_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/services"
)

func TestTemplateCapacity(t *testing.T) {
	linux := contract.NodeInfo{OperatingSystem: "linux"}
	tests := []struct {
		name      string
		resources corev1.ResourceList
		want      contract.MachineTemplateCapacity
		wantErr   string
	}{
		{name: "cpu and memory", resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
			want: contract.MachineTemplateCapacity{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}, NodeInfo: linux}},
		{name: "cpu only: the memory is the node's, unknown", resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
			want: contract.MachineTemplateCapacity{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}, NodeInfo: linux}},
		{name: "no resources: no capacity", want: contract.MachineTemplateCapacity{NodeInfo: linux}},
		{name: "empty resources: no capacity", resources: corev1.ResourceList{}, want: contract.MachineTemplateCapacity{NodeInfo: linux}},
		{name: "a GPU", resources: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")},
			wantErr: `cannot size PodMachineTemplate "workers": spec.template.spec.resources: Unsupported value: "nvidia.com/gpu"`},
		{name: "zero memory", resources: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("0")},
			wantErr: `cannot size PodMachineTemplate "workers": spec.template.spec.resources[memory]: Invalid value: "0": must be greater than zero`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := &v1beta2.PodMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "workers"}}
			tmpl.Spec.Template.Spec.Resources = tt.resources
			got, err := services.TemplateCapacity(tmpl)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Zero(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Empty(t, got.NodeInfo.Architecture, "the Pod may land on a node of any architecture")
			if len(tt.resources) > 0 {
				tt.resources[corev1.ResourceCPU] = resource.MustParse("64")
				assert.NotEqual(t, tt.resources, got.Capacity, "a copy, not the template's map")
			}
		})
	}
}
