package lint

import (
	"github.com/capkit/capkit/contract"

	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A provider's InfraCluster written for contract v1beta2, embedding capkit's types.
type fixV2ClusterSpec struct {
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
	Region               string               `json:"region"`
}

type fixV2ClusterStatus struct {
	Initialization contract.InfraClusterInitialization `json:"initialization,omitempty,omitzero"`
	FailureDomains []contract.FailureDomain            `json:"failureDomains,omitempty"`
	Conditions     []metav1.Condition                  `json:"conditions,omitempty"`
}

type fixV2Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              fixV2ClusterSpec    `json:"spec,omitempty"`
	Status            *fixV2ClusterStatus `json:"status,omitempty"`
}

// The same provider's InfraCluster in the v1beta1 shape.
type fixV1Condition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	Severity           string      `json:"severity,omitempty"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
}

type fixV1FailureDomainSpec struct {
	ControlPlane bool              `json:"controlPlane,omitempty"`
	Attributes   map[string]string `json:"attributes,omitempty"`
}

type fixV1ClusterStatus struct {
	Ready          bool                              `json:"ready"`
	FailureDomains map[string]fixV1FailureDomainSpec `json:"failureDomains,omitempty"`
	Conditions     []fixV1Condition                  `json:"conditions,omitempty"`
	V1Beta2        *struct {
		Conditions []metav1.Condition `json:"conditions,omitempty"`
	} `json:"v1beta2,omitempty"`
}

type fixV1Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              fixV2ClusterSpec   `json:"spec,omitempty"`
	Status            fixV1ClusterStatus `json:"status,omitempty"`
}

// An InfraMachine whose status fields come from an embedded struct, with pointers everywhere.
type fixCommonMachineStatus struct {
	Addresses     []contract.MachineAddress `json:"addresses,omitempty"`
	FailureDomain *string                   `json:"failureDomain,omitempty"`
}

type fixV2MachineStatus struct {
	fixCommonMachineStatus `json:",inline"`
	Initialization         *contract.InfraMachineInitialization `json:"initialization,omitempty"`
	Conditions             []metav1.Condition                   `json:"conditions,omitempty"`
	Ignored                string                               `json:"-"`
	internal               string                               //nolint:unused // unexported fields must be ignored by CheckType
}

type fixV2Machine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		ProviderID *string            `json:"providerID,omitempty"`
		Disk       *resource.Quantity `json:"disk,omitempty"`
	} `json:"spec"`
	Status fixV2MachineStatus `json:"status"`
}

type fixV2BootstrapConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            struct {
		Initialization contract.BootstrapConfigInitialization `json:"initialization,omitempty,omitzero"`
		DataSecretName *string                                `json:"dataSecretName,omitempty"`
	} `json:"status"`
}

type fixV1BootstrapConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            struct {
		Ready          bool    `json:"ready"`
		DataSecretName *string `json:"dataSecretName,omitempty"`
	} `json:"status"`
}

type fixMachineTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Template struct {
			Spec map[string]string `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

func TestCheckTypeGood(t *testing.T) {
	tests := []struct {
		name string
		obj  any
		k    Kind
		v    contract.Version
	}{
		{"v1beta2 InfraCluster", &fixV2Cluster{}, KindInfraCluster, contract.V1Beta2},
		{"v1beta2 InfraCluster by value", fixV2Cluster{}, KindInfraCluster, contract.V1Beta2},
		{"v1beta1 InfraCluster", &fixV1Cluster{}, KindInfraCluster, contract.V1Beta1},
		{"v1beta2 InfraMachine with inline status", &fixV2Machine{}, KindInfraMachine, contract.V1Beta2},
		{"v1beta2 BootstrapConfig", &fixV2BootstrapConfig{}, KindBootstrapConfig, contract.V1Beta2},
		{"v1beta1 BootstrapConfig", &fixV1BootstrapConfig{}, KindBootstrapConfig, contract.V1Beta1},
		{"template without status", &fixMachineTemplate{}, KindInfraMachineTemplate, contract.V1Beta2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Empty(t, CheckType(tt.obj, tt.k, tt.v).Strings())
		})
	}
}

func TestCheckTypeV1Beta1ShapeUnderV1Beta2Label(t *testing.T) {
	vs := CheckType(&fixV1Cluster{}, KindInfraCluster, contract.V1Beta2)
	assert.Equal(t, []string{"infracluster.conditions", "infracluster.failureDomains", "infracluster.provisioned"}, vs.Rules())
	byRule := map[string]Violation{}
	for _, v := range vs {
		byRule[v.Rule] = v
		assert.Equal(t, "lint.fixV1Cluster", v.Object)
	}
	assert.Equal(t, "status.initialization.provisioned", byRule["infracluster.provisioned"].Path)
	assert.Contains(t, byRule["infracluster.provisioned"].Message, "status.ready exists: the type has the v1beta1 shape")
	assert.Contains(t, byRule["infracluster.failureDomains"].Message, "is object")
	assert.Contains(t, byRule["infracluster.failureDomains"].Message, "want array (that is the v1beta1 shape)")
	assert.Contains(t, byRule["infracluster.conditions"].Message, "v1beta1 Cluster API conditions")

	// And the other way round: a v1beta2 type checked as v1beta1.
	vs = CheckType(&fixV2Cluster{}, KindInfraCluster, contract.V1Beta1)
	assert.Equal(t, []string{"infracluster.failureDomains", "infracluster.provisioned"}, vs.Rules())
	assert.Contains(t, vs.String(), "status.initialization.provisioned exists: the type has the v1beta2 shape")
}

func TestCheckTypeFieldViolations(t *testing.T) {
	type badEndpoint struct {
		Host string `json:"host"`
		Port string `json:"port"`
	}
	type badAddress struct {
		Kind    string `json:"kind"`
		Address []byte `json:"address"`
	}
	type badCluster struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata,omitempty"`
		Spec              struct {
			ControlPlaneEndpoint badEndpoint `json:"controlPlaneEndpoint"`
		} `json:"spec"`
		Status struct {
			Initialization struct {
				Provisioned *string `json:"provisioned"`
			} `json:"initialization"`
			FailureDomains []struct {
				ID string `json:"id"`
			} `json:"failureDomains"`
			Conditions []struct {
				Type   string `json:"type"`
				Status bool   `json:"status"`
			} `json:"conditions"`
		} `json:"status"`
	}
	vs := CheckType(&badCluster{}, KindInfraCluster, contract.V1Beta2)
	port := vs.Filter(func(v Violation) bool { return v.Rule == "infracluster.controlPlaneEndpoint.port" })
	require.Len(t, port, 1)
	assert.Equal(t, "lint.badCluster: infracluster.controlPlaneEndpoint.port: spec.controlPlaneEndpoint.port: "+
		"spec.controlPlaneEndpoint.port is string (Go string), want integer: spec.controlPlaneEndpoint.port must be an integer", port[0].String())
	ltt := vs.Filter(func(v Violation) bool { return v.Rule == "infracluster.conditions.lastTransitionTime" })
	require.Len(t, ltt, 1)
	assert.Equal(t, "status.conditions.lastTransitionTime", ltt[0].Path)
	assert.Equal(t, "items of status.conditions (Go anonymous struct) miss required field lastTransitionTime: "+
		"conditions must be metav1.Condition: lastTransitionTime must be string", ltt[0].Message)
	assert.ElementsMatch(t, []string{
		"infracluster.controlPlaneEndpoint.port", "infracluster.provisioned", "infracluster.failureDomains.name",
		"infracluster.conditions.status", "infracluster.conditions.lastTransitionTime", "infracluster.conditions.reason",
		"infracluster.conditions.message",
	}, vs.Rules())

	type badMachine struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata,omitempty"`
		Spec              struct {
			ProviderID int `json:"providerID"`
		} `json:"spec"`
		Status struct {
			Addresses     []badAddress `json:"addresses"`
			FailureDomain *int         `json:"failureDomain"`
		} `json:"status"`
	}
	vs = CheckType(&badMachine{}, KindInfraMachine, contract.V1Beta2)
	assert.ElementsMatch(t, []string{"inframachine.providerID", "inframachine.provisioned", "inframachine.addresses.type", "inframachine.failureDomain"}, vs.Rules(),
		vs.String())
	assert.False(t, vs.Has("inframachine.addresses.address"), "[]byte is a JSON string")
}

func TestCheckTypeObjectStructure(t *testing.T) {
	type noMeta struct {
		Spec   fixV2ClusterSpec   `json:"spec"`
		Status fixV2ClusterStatus `json:"status"`
	}
	type wrongMeta struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   map[string]string `json:"metadata"`
		Spec       fixV2ClusterSpec  `json:"spec"`
		Status     string            `json:"status"`
	}
	type namedInline struct {
		Meta   metav1.TypeMeta   `json:",inline"`
		Obj    metav1.ObjectMeta `json:"metadata"`
		Spec   fixV2ClusterSpec  `json:"spec"`
		Status struct {
			fixV2ClusterStatus `json:",inline"`
		} `json:"status"`
	}
	vs := CheckType(&noMeta{}, KindInfraCluster, contract.V1Beta2)
	assert.Equal(t, []string{"gotype.objectmeta", "gotype.typemeta"}, vs.Rules())
	vs = CheckType(&wrongMeta{}, KindInfraCluster, contract.V1Beta2)
	assert.Equal(t, []string{"gotype.objectmeta", "gotype.status", "infracluster.provisioned"}, vs.Rules())
	assert.Empty(t, CheckType(&namedInline{}, KindInfraCluster, contract.V1Beta2), "a named field tagged inline is inlined, as controller-gen does")
}

func TestCheckTypeBadArguments(t *testing.T) {
	assert.Equal(t, []string{"gotype.struct"}, CheckType(nil, KindInfraCluster, contract.V1Beta2).Rules())
	s := "x"
	vs := CheckType(&s, KindInfraCluster, contract.V1Beta2)
	assert.Equal(t, []string{"gotype.struct"}, vs.Rules())
	assert.Equal(t, "string", vs[0].Object)
	assert.Equal(t, []string{"gotype.version"}, CheckType(&fixV2Cluster{}, KindInfraCluster, "v2").Rules())
	assert.Equal(t, []string{"gotype.kind"}, CheckType(&fixV2Cluster{}, "Widget", contract.V1Beta2).Rules())
}

type fixLoop struct {
	*fixLoop        //nolint:unused // a self-embedding type must not loop forever
	Name     string `json:"name"`
}

func TestJSONFieldsRules(t *testing.T) {
	type inner struct {
		A string `json:"a"`
		B string `json:"b"`
	}
	type outer struct {
		inner
		B       int `json:"b"` // shallower field wins
		Untag   bool
		Skip    bool `json:"-"`
		private bool //nolint:unused // unexported fields are not JSON fields
		Dash    bool `json:"-,"` //nolint:staticcheck // SA5008: the field named "-" is the case under test
	}
	fields := jsonFields(reflect.TypeFor[outer](), 0)
	assert.Equal(t, reflect.TypeFor[string](), fields["a"])
	assert.Equal(t, reflect.TypeFor[int](), fields["b"])
	assert.Contains(t, fields, "Untag")
	assert.Contains(t, fields, "-")
	assert.NotContains(t, fields, "Skip")
	assert.NotContains(t, fields, "private")
	assert.NotPanics(t, func() { jsonFields(reflect.TypeFor[fixLoop](), 0) }, "self-embedding types terminate")
	ft, ok := resolve(reflect.TypeFor[fixLoop](), contract.Path{"name"})
	require.True(t, ok)
	assert.Equal(t, reflect.String, ft.Kind())
	_, ok = resolve(reflect.TypeFor[map[int]string](), contract.Path{"x"})
	assert.False(t, ok)
	_, ok = resolve(reflect.TypeFor[string](), contract.Path{"x"})
	assert.False(t, ok)
}
