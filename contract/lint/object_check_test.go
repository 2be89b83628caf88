package lint

import (
	"github.com/capkit/capkit/contract"

	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

const okCondition = `{"type":"Ready","status":"True","reason":"Provisioned","message":"","lastTransitionTime":"2025-01-02T03:04:05Z"}`

// fromJSON decodes JSON as the API machinery does, so that numbers are int64.
func fromJSON(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	require.NoError(t, utiljson.Unmarshal([]byte(s), &m))
	return &unstructured.Unstructured{Object: m}
}

func named(t *testing.T, kind, body string) *unstructured.Unstructured {
	t.Helper()
	return fromJSON(t, `{"apiVersion":"infrastructure.example.com/v1beta2","kind":"`+kind+`","metadata":{"name":"x","namespace":"ns"},`+body+`}`)
}

func TestCheckInfraCluster(t *testing.T) {
	tests := []struct {
		name  string
		v     contract.Version
		body  string
		opts  []CheckOption
		rules []string // nil: no violations
		text  string   // in the violations' text
	}{
		{name: "new object without status", v: contract.V1Beta2, body: `"spec":{}`},
		{name: "v1beta2 provisioned with endpoint", v: contract.V1Beta2, body: `"spec":{"controlPlaneEndpoint":{"host":"10.0.0.1","port":6443}},
			"status":{"initialization":{"provisioned":true},"failureDomains":[{"name":"a","controlPlane":true},{"name":"b","attributes":{"k":"v"}}],"conditions":[` + okCondition + `]}`},
		{name: "v1beta1 provisioned with endpoint", v: contract.V1Beta1, body: `"spec":{"controlPlaneEndpoint":{"host":"h","port":443}},
			"status":{"ready":true,"failureDomains":{"a":{"controlPlane":true},"b":{}},"conditions":[{"type":"Ready","status":"True","severity":""}],
			"v1beta2":{"conditions":[` + okCondition + `]}}`},
		{name: "provisioned without endpoint", v: contract.V1Beta2, body: `"status":{"initialization":{"provisioned":true}}`,
			rules: []string{"infracluster.controlPlaneEndpoint"}, text: "status.initialization.provisioned is true but spec.controlPlaneEndpoint has no host and port"},
		{name: "provisioned without endpoint, endpoint set elsewhere", v: contract.V1Beta2, body: `"status":{"initialization":{"provisioned":true}}`,
			opts: []CheckOption{WithExternalControlPlaneEndpoint()}},
		{name: "v1beta1 provisioned without endpoint", v: contract.V1Beta1, body: `"spec":{"controlPlaneEndpoint":{"host":"","port":0}},"status":{"ready":true}`,
			rules: []string{"infracluster.controlPlaneEndpoint"}},
		{name: "endpoint without port", v: contract.V1Beta2, body: `"spec":{"controlPlaneEndpoint":{"host":"h"}}`,
			rules: []string{"infracluster.controlPlaneEndpoint"}, text: `host "h" and port 0`},
		{name: "endpoint port out of range", v: contract.V1Beta2, body: `"spec":{"controlPlaneEndpoint":{"host":"h","port":70000}}`, opts: []CheckOption{WithExternalControlPlaneEndpoint()},
			rules: []string{"infracluster.controlPlaneEndpoint"}, text: "port 70000"},
		{name: "endpoint port of wrong type", v: contract.V1Beta2, body: `"spec":{"controlPlaneEndpoint":{"host":"h","port":"6443"}}`,
			rules: []string{"infracluster.controlPlaneEndpoint.port"}, text: "spec.controlPlaneEndpoint.port is string, want integer for contract v1beta2"},
		{name: "provisioned of wrong type", v: contract.V1Beta2, body: `"status":{"initialization":{"provisioned":"true"}}`,
			rules: []string{"infracluster.provisioned"}, text: "is string, want boolean"},
		{name: "v1beta2 object still in v1beta1 shape", v: contract.V1Beta2, body: `"spec":{"controlPlaneEndpoint":{"host":"h","port":443}},"status":{"ready":true,"failureDomains":{"a":{}}}`,
			rules: []string{"infracluster.failureDomains", "infracluster.provisioned"},
			text:  "status.initialization.provisioned is absent but status.ready is set: contract v1beta2 reads status.initialization.provisioned (the object has the v1beta1 shape)"},
		{name: "v1beta1 object in v1beta2 shape", v: contract.V1Beta1, body: `"status":{"initialization":{"provisioned":true}}`,
			rules: []string{"infracluster.provisioned"}, text: "(the object has the v1beta2 shape)"},
		{name: "parent of a field is not an object", v: contract.V1Beta2, body: `"status":{"initialization":"done"}`,
			rules: []string{"infracluster.provisioned"}, text: `"status.initialization" is string, not an object`},
		{name: "failure domain without name", v: contract.V1Beta2, body: `"status":{"failureDomains":[{"controlPlane":true}]}`,
			rules: []string{"infracluster.failureDomains.name"}, text: "status.failureDomains[0].name"},
		{name: "failure domain with empty name", v: contract.V1Beta2, body: `"status":{"failureDomains":[{"name":""}]}`,
			rules: []string{"infracluster.failureDomains.name"}, text: "failure domain 0 has an empty name"},
		{name: "failure domain names repeated", v: contract.V1Beta2, body: `"status":{"failureDomains":[{"name":"a"},{"name":"a"}]}`,
			rules: []string{"infracluster.failureDomains.name"}, text: `name "a" appears more than once`},
		{name: "failure domain item not an object", v: contract.V1Beta2, body: `"status":{"failureDomains":["a"]}`,
			rules: []string{"infracluster.failureDomains"}, text: "item is string, want object"},
		{name: "v1beta1 failure domain entry of wrong type", v: contract.V1Beta1, body: `"status":{"failureDomains":{"a":{"controlPlane":"yes"}}}`,
			rules: []string{"infracluster.failureDomains.controlPlane"}, text: `status.failureDomains["a"].controlPlane`},
		{name: "v1beta1 failure domain empty key", v: contract.V1Beta1, body: `"status":{"failureDomains":{"":{}}}`,
			rules: []string{"infracluster.failureDomains.name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := CheckInfraCluster(named(t, "MemCluster", tt.body), tt.v, tt.opts...)
			if tt.rules == nil {
				assert.Empty(t, vs.Strings())
				return
			}
			assert.Equal(t, tt.rules, vs.Rules(), vs.String())
			assert.Contains(t, vs.String(), tt.text)
			for _, v := range vs {
				assert.Equal(t, "MemCluster/x", v.Object)
				assert.NotContains(t, v.Message, "\n")
			}
		})
	}
}

func TestCheckConditions(t *testing.T) {
	tests := []struct {
		name  string
		conds string
		text  []string
	}{
		{name: "valid", conds: okCondition + `,{"type":"Paused","status":"False","reason":"NotPaused","message":"","lastTransitionTime":"2025-01-02T03:04:05Z","observedGeneration":2}`},
		{name: "bad status", conds: `{"type":"Ready","status":"Yes","reason":"R","message":"","lastTransitionTime":"2025-01-02T03:04:05Z"}`,
			text: []string{`condition "Ready" has status "Yes", want True, False or Unknown`}},
		{name: "repeated type", conds: okCondition + "," + okCondition, text: []string{`condition type "Ready" appears more than once`}},
		{name: "empty type", conds: `{"type":"","status":"True","reason":"R","message":"","lastTransitionTime":"2025-01-02T03:04:05Z"}`,
			text: []string{"condition type is empty"}},
		{name: "bad reason", conds: `{"type":"Ready","status":"True","reason":"not ok","message":"","lastTransitionTime":"2025-01-02T03:04:05Z"}`,
			text: []string{`reason "not ok", want a CamelCase identifier`}},
		{name: "bad time", conds: `{"type":"Ready","status":"True","reason":"R","message":"","lastTransitionTime":"yesterday"}`,
			text: []string{`lastTransitionTime "yesterday", want RFC 3339`}},
		{name: "missing fields and wrong types", conds: `{"type":"Ready","status":true}`,
			text: []string{"status.conditions[0].status: status is boolean, want string", "status.conditions[0].reason: reason is missing",
				"status.conditions[0].lastTransitionTime: lastTransitionTime is missing", "status.conditions[0].message: message is missing"}},
		{name: "not an object", conds: `"Ready"`, text: []string{"status.conditions[0]: item is string, want object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for kind, check := range map[string]func(*unstructured.Unstructured) Violations{
				"infracluster":    func(u *unstructured.Unstructured) Violations { return CheckInfraCluster(u, contract.V1Beta2) },
				"inframachine":    func(u *unstructured.Unstructured) Violations { return CheckInfraMachine(u, contract.V1Beta2) },
				"bootstrapconfig": func(u *unstructured.Unstructured) Violations { return CheckBootstrapConfig(u, contract.V1Beta2) },
			} {
				vs := check(named(t, "K", `"status":{"conditions":[`+tt.conds+`]}`))
				if tt.text == nil {
					assert.Empty(t, vs.Strings(), kind)
					continue
				}
				for _, text := range tt.text {
					assert.Contains(t, vs.String(), text, kind)
				}
				for _, r := range vs.Rules() {
					assert.True(t, strings.HasPrefix(r, kind+".conditions"), r)
				}
			}
		})
	}
	// v1beta1 objects keep metav1 conditions under status.v1beta2.conditions.
	vs := CheckInfraCluster(named(t, "K", `"status":{"v1beta2":{"conditions":[{"type":"Ready","status":"Maybe","reason":"R","message":"","lastTransitionTime":"2025-01-02T03:04:05Z"}]}}`), contract.V1Beta1)
	assert.Equal(t, []string{"infracluster.conditions"}, vs.Rules())
	assert.Equal(t, "status.v1beta2.conditions[0].status", vs[0].Path)
}

func TestCheckInfraMachine(t *testing.T) {
	tests := []struct {
		name  string
		v     contract.Version
		body  string
		rules []string
		text  string
	}{
		{name: "new", v: contract.V1Beta2, body: `"spec":{}`},
		{name: "v1beta2 provisioned", v: contract.V1Beta2, body: `"spec":{"providerID":"mem://m-1"},"status":{"initialization":{"provisioned":true},
			"addresses":[{"type":"InternalIP","address":"10.0.0.2"},{"type":"Hostname","address":"m-1"}],"failureDomain":"a","conditions":[` + okCondition + `]}`},
		{name: "v1beta1 provisioned", v: contract.V1Beta1, body: `"spec":{"providerID":"aws:///us-east-1a/i-1"},"status":{"ready":true,"addresses":[{"type":"ExternalDNS","address":"m.example.com"}]}`},
		{name: "provisioned without providerID", v: contract.V1Beta2, body: `"status":{"initialization":{"provisioned":true}}`,
			rules: []string{"inframachine.providerID"}, text: "status.initialization.provisioned is true but spec.providerID is empty"},
		{name: "v1beta1 ready without providerID", v: contract.V1Beta1, body: `"spec":{"providerID":""},"status":{"ready":true}`,
			rules: []string{"inframachine.providerID"}},
		{name: "providerID without scheme", v: contract.V1Beta2, body: `"spec":{"providerID":"i-123"}`,
			rules: []string{"inframachine.providerID"}, text: `spec.providerID "i-123" must have the form <provider>://<id>`},
		{name: "providerID of wrong type", v: contract.V1Beta2, body: `"spec":{"providerID":123}`,
			rules: []string{"inframachine.providerID"}, text: "spec.providerID is integer, want string"},
		{name: "v1beta2 object in v1beta1 shape", v: contract.V1Beta2, body: `"spec":{"providerID":"mem://m"},"status":{"ready":true}`,
			rules: []string{"inframachine.provisioned"}, text: "status.ready is set"},
		{name: "unknown address type", v: contract.V1Beta2, body: `"status":{"addresses":[{"type":"PublicIP","address":"1.2.3.4"}]}`,
			rules: []string{"inframachine.addresses.type"}, text: `status.addresses[0].type: address type "PublicIP" is not one of`},
		{name: "empty address", v: contract.V1Beta2, body: `"status":{"addresses":[{"type":"InternalIP","address":""}]}`,
			rules: []string{"inframachine.addresses.address"}, text: "status.addresses[0].address: address is empty"},
		{name: "address missing", v: contract.V1Beta2, body: `"status":{"addresses":[{"type":"InternalIP"}]}`,
			rules: []string{"inframachine.addresses.address"}, text: "address is missing"},
		{name: "addresses not a list", v: contract.V1Beta2, body: `"status":{"addresses":{"type":"InternalIP"}}`,
			rules: []string{"inframachine.addresses"}, text: "status.addresses is object, want array"},
		{name: "failureDomain of wrong type", v: contract.V1Beta2, body: `"status":{"failureDomain":["a"]}`,
			rules: []string{"inframachine.failureDomain"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := CheckInfraMachine(named(t, "MemMachine", tt.body), tt.v)
			if tt.rules == nil {
				assert.Empty(t, vs.Strings())
				return
			}
			assert.Equal(t, tt.rules, vs.Rules(), vs.String())
			assert.Contains(t, vs.String(), tt.text)
		})
	}
}

func TestCheckBootstrapConfig(t *testing.T) {
	tests := []struct {
		name  string
		v     contract.Version
		body  string
		rules []string
		text  string
	}{
		{name: "new", v: contract.V1Beta2, body: `"spec":{}`},
		{name: "v1beta2 created", v: contract.V1Beta2, body: `"status":{"initialization":{"dataSecretCreated":true},"dataSecretName":"m-1"}`},
		{name: "v1beta1 ready", v: contract.V1Beta1, body: `"status":{"ready":true,"dataSecretName":"m-1"}`},
		{name: "created without name", v: contract.V1Beta2, body: `"status":{"initialization":{"dataSecretCreated":true}}`,
			rules: []string{"bootstrapconfig.dataSecretName"}, text: "status.initialization.dataSecretCreated is true but status.dataSecretName is empty"},
		{name: "v1beta1 ready without name", v: contract.V1Beta1, body: `"status":{"ready":true,"dataSecretName":""}`,
			rules: []string{"bootstrapconfig.dataSecretName"}},
		{name: "name of wrong type", v: contract.V1Beta2, body: `"status":{"dataSecretName":{"name":"x"}}`,
			rules: []string{"bootstrapconfig.dataSecretName"}, text: "status.dataSecretName is object, want string"},
		{name: "v1beta2 object in v1beta1 shape", v: contract.V1Beta2, body: `"status":{"ready":true,"dataSecretName":"m-1"}`,
			rules: []string{"bootstrapconfig.dataSecretCreated"}, text: "status.initialization.dataSecretCreated is absent but status.ready is set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := CheckBootstrapConfig(named(t, "MemBootstrapConfig", tt.body), tt.v)
			if tt.rules == nil {
				assert.Empty(t, vs.Strings())
				return
			}
			assert.Equal(t, tt.rules, vs.Rules(), vs.String())
			assert.Contains(t, vs.String(), tt.text)
		})
	}
}

func TestCheckObjectBadArguments(t *testing.T) {
	assert.Equal(t, []string{"object.nil"}, CheckInfraCluster(nil, contract.V1Beta2).Rules())
	assert.Equal(t, []string{"object.nil"}, CheckInfraMachine(&unstructured.Unstructured{}, contract.V1Beta2).Rules())
	assert.Equal(t, []string{"object.nil"}, CheckBootstrapConfig(nil, contract.V1Beta1).Rules())
	vs := CheckInfraCluster(named(t, "MemCluster", `"spec":{}`), "v3")
	assert.Equal(t, []string{"object.version"}, vs.Rules())
	vs = CheckInfraMachine(fromJSON(t, `{"metadata":{"name":"m"},"spec":{"providerID":"x"}}`), contract.V1Beta2)
	require.Len(t, vs, 1)
	assert.Equal(t, "InfraMachine/m", vs[0].Object, "the role names an object without kind")
}

const secretData = "#cloud-config\nsecret-token: s3cr3t-VALUE"

func bootstrapConfig(t *testing.T) *unstructured.Unstructured {
	return fromJSON(t, `{"apiVersion":"bootstrap.example.com/v1beta2","kind":"MemBootstrapConfig",
		"metadata":{"name":"m-1","namespace":"ns","uid":"uid-1","labels":{"cluster.x-k8s.io/cluster-name":"c"}},
		"status":{"dataSecretName":"m-1-bootstrap"}}`)
}

func goodSecret() *corev1.Secret {
	yes := true
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: "m-1-bootstrap", Namespace: "ns",
			Labels: map[string]string{contract.ClusterNameLabel: "c"},
			OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Machine", Name: "m-1", UID: "machine-uid"},
				{APIVersion: "bootstrap.example.com/v1beta1", Kind: "MemBootstrapConfig", Name: "m-1", UID: "uid-1", Controller: &yes},
			},
		},
		Type: "cluster.x-k8s.io/secret",
		Data: map[string][]byte{contract.BootstrapDataKey: []byte(secretData), contract.BootstrapFormatKey: []byte(contract.FormatCloudConfig)},
	}
}

func TestCheckBootstrapSecret(t *testing.T) {
	no := false
	tests := []struct {
		name   string
		change func(s *corev1.Secret, c *unstructured.Unstructured)
		rules  []string
		text   string
	}{
		{name: "good", change: func(*corev1.Secret, *unstructured.Unstructured) {}},
		{name: "ignition", change: func(s *corev1.Secret, _ *unstructured.Unstructured) {
			s.Data[contract.BootstrapFormatKey] = []byte(contract.FormatIgnition)
		}},
		{name: "no format", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { delete(s.Data, contract.BootstrapFormatKey) }},
		{name: "not yet written, StringData", change: func(s *corev1.Secret, _ *unstructured.Unstructured) {
			s.StringData = map[string]string{contract.BootstrapDataKey: secretData}
			s.Data = nil
		}},
		{name: "config without status or labels", change: func(_ *corev1.Secret, c *unstructured.Unstructured) {
			delete(c.Object, "status")
			c.SetLabels(nil)
		}},
		{name: "config without uid", change: func(_ *corev1.Secret, c *unstructured.Unstructured) { c.SetUID("") }},
		{name: "no value", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { delete(s.Data, contract.BootstrapDataKey) },
			rules: []string{"bootstrapsecret.value"}, text: `data.value: key "value" must hold the bootstrap data`},
		{name: "empty value", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.Data[contract.BootstrapDataKey] = nil },
			rules: []string{"bootstrapsecret.value"}},
		{name: "bad format", change: func(s *corev1.Secret, _ *unstructured.Unstructured) {
			s.Data[contract.BootstrapFormatKey] = []byte("s3cr3t-VALUE")
		},
			rules: []string{"bootstrapsecret.format"}, text: `key "format" must be "cloud-config" or "ignition"`},
		{name: "no cluster label", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.Labels = nil },
			rules: []string{"bootstrapsecret.clusterName"}, text: `label "cluster.x-k8s.io/cluster-name" must name the Cluster`},
		{name: "other cluster label", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.Labels[contract.ClusterNameLabel] = "d" },
			rules: []string{"bootstrapsecret.clusterName"}, text: `is "d" but MemBootstrapConfig/m-1 has "c"`},
		{name: "other namespace", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.Namespace = "other" },
			rules: []string{"bootstrapsecret.namespace"}, text: `namespace "other"`},
		{name: "other name", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.Name = "random" },
			rules: []string{"bootstrapsecret.name"}, text: `names Secret "m-1-bootstrap" in status.dataSecretName, not "random"`},
		{name: "no controller reference", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.OwnerReferences[1].Controller = &no },
			rules: []string{"bootstrapsecret.ownerRef"}, text: "no controller owner reference: set one to MemBootstrapConfig/m-1"},
		{name: "no owner references", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.OwnerReferences = nil },
			rules: []string{"bootstrapsecret.ownerRef"}},
		{name: "controller is another object", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.OwnerReferences[1].Name = "m-2" },
			rules: []string{"bootstrapsecret.ownerRef"}, text: "controller owner is MemBootstrapConfig/m-2, want MemBootstrapConfig/m-1"},
		{name: "controller is another kind", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.OwnerReferences[1].Kind = "Machine" },
			rules: []string{"bootstrapsecret.ownerRef"}},
		{name: "controller in another group", change: func(s *corev1.Secret, _ *unstructured.Unstructured) {
			s.OwnerReferences[1].APIVersion = "other.example.com/v1beta2"
		}, rules: []string{"bootstrapsecret.ownerRef"}, text: `API group "other.example.com", want "bootstrap.example.com"`},
		{name: "controller UID of an older object", change: func(s *corev1.Secret, _ *unstructured.Unstructured) { s.OwnerReferences[1].UID = "uid-0" },
			rules: []string{"bootstrapsecret.ownerRef"}, text: `UID "uid-0" is not the UID "uid-1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := goodSecret(), bootstrapConfig(t)
			tt.change(s, c)
			vs := CheckBootstrapSecret(s, c)
			assert.NotContains(t, vs.String(), "s3cr3t", "violations never show the Secret's data")
			if tt.rules == nil {
				assert.Empty(t, vs.Strings())
				return
			}
			assert.Equal(t, tt.rules, vs.Rules(), vs.String())
			assert.Contains(t, vs.String(), tt.text)
			assert.Equal(t, "Secret/"+s.Name, vs[0].Object)
		})
	}
}

func TestCheckBootstrapSecretWithoutConfig(t *testing.T) {
	s := goodSecret()
	s.OwnerReferences, s.Namespace = nil, "elsewhere"
	assert.Empty(t, CheckBootstrapSecret(s, nil), "without the config only the Secret's own rules apply")
	s.Labels = nil
	assert.Equal(t, []string{"bootstrapsecret.clusterName"}, CheckBootstrapSecret(s, nil).Rules())
	assert.Equal(t, []string{"bootstrapsecret.nil"}, CheckBootstrapSecret(nil, nil).Rules())
}

func TestCheckObjectBuiltInGo(t *testing.T) {
	// Objects built in Go code hold int, not int64; numbers must still be read as integers.
	u := &unstructured.Unstructured{Object: map[string]any{
		"kind":     "MemCluster",
		"metadata": map[string]any{"name": "c"},
		"spec":     map[string]any{"controlPlaneEndpoint": map[string]any{"host": "h", "port": 6443}},
		"status":   map[string]any{"initialization": map[string]any{"provisioned": true}},
	}}
	assert.Empty(t, CheckInfraCluster(u, contract.V1Beta2).Strings())
	u.Object["spec"] = map[string]any{"controlPlaneEndpoint": map[string]any{"host": "h", "port": 6443.5}}
	assert.Contains(t, CheckInfraCluster(u, contract.V1Beta2).String(), "spec.controlPlaneEndpoint.port is number, want integer")
	assert.Equal(t, "integer", valueType(int32(1)))
	assert.Equal(t, "integer", valueType(2.0))
}
