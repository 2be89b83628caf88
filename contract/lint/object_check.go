package lint

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/jsonvalue"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// conditionReasonPattern is the pattern the API server enforces on metav1.Condition reasons.
var conditionReasonPattern = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

// CheckOption changes what a live-object checker asks.
type CheckOption func(*checkOptions)

type checkOptions struct {
	externalEndpoint bool
}

// WithExternalControlPlaneEndpoint tells CheckInfraCluster that the control plane endpoint is set by someone
// else (the user on the Cluster, or a control plane provider), so a provisioned InfraCluster may leave
// spec.controlPlaneEndpoint empty. A set endpoint is still checked.
func WithExternalControlPlaneEndpoint() CheckOption {
	return func(o *checkOptions) { o.externalEndpoint = true }
}

// CheckInfraCluster checks a live InfraCluster against contract version v: every contract field that is
// present has the right shape for v (a field only in the other version's place is reported), a provisioned
// InfraCluster has a control plane endpoint with host and port 1-65535, failure domains have unique, non-empty
// names, and conditions are valid metav1.Conditions with unique types. Absent optional fields are fine: a new
// object has no status yet.
func CheckInfraCluster(u *unstructured.Unstructured, v contract.Version, opts ...CheckOption) Violations {
	var o checkOptions
	for _, opt := range opts {
		opt(&o)
	}
	c, out := newObjectCheck(u, KindInfraCluster, v)
	if c == nil {
		return out
	}
	f := contract.InfraCluster(v)
	ep, epErr := f.ControlPlaneEndpoint().Get(u)
	provisioned, _ := f.Provisioned().Get(u)
	switch {
	case epErr == nil && !ep.IsZero() && (ep.Host == "" || ep.Port < 1 || ep.Port > 65535):
		c.add("infracluster.controlPlaneEndpoint", f.ControlPlaneEndpoint().Path(),
			"spec.controlPlaneEndpoint needs both a host and a port in 1-65535, got host %q and port %d", ep.Host, ep.Port)
	case provisioned && !o.externalEndpoint && !ep.IsValid():
		c.add("infracluster.controlPlaneEndpoint", f.ControlPlaneEndpoint().Path(),
			"%s is true but spec.controlPlaneEndpoint has no host and port: set the endpoint before or with provisioned", f.Provisioned().Path())
	}
	if domains, err := f.FailureDomains().Get(u); err == nil {
		seen := map[string]bool{}
		for i, d := range domains {
			switch {
			case d.Name == "":
				c.add("infracluster.failureDomains.name", f.FailureDomains().Path(), "failure domain %d has an empty name", i)
			case seen[d.Name]:
				c.add("infracluster.failureDomains.name", f.FailureDomains().Path(), "failure domain name %q appears more than once", d.Name)
			}
			seen[d.Name] = true
		}
	}
	c.checkConditions("infracluster.conditions", f.Conditions())
	return c.sorted()
}

// CheckInfraMachine checks a live InfraMachine against contract version v: shapes as CheckInfraCluster does,
// a provisioned InfraMachine has spec.providerID, providerID has the "<provider>://<id>" form the Node will
// report, addresses have a known type and a non-empty address, and conditions are valid.
func CheckInfraMachine(u *unstructured.Unstructured, v contract.Version) Violations {
	c, out := newObjectCheck(u, KindInfraMachine, v)
	if c == nil {
		return out
	}
	f := contract.InfraMachine(v)
	providerID, idErr := f.ProviderID().Get(u)
	provisioned, _ := f.Provisioned().Get(u)
	switch {
	case idErr == nil && !strings.Contains(providerID, "://"):
		c.add("inframachine.providerID", f.ProviderID().Path(),
			"spec.providerID %q must have the form <provider>://<id>, exactly as the Node's spec.providerID", providerID)
	case provisioned && providerID == "":
		c.add("inframachine.providerID", f.ProviderID().Path(),
			"%s is true but spec.providerID is empty: set the provider ID before or with provisioned", f.Provisioned().Path())
	}
	if addrs, err := f.Addresses().Get(u); err == nil {
		for i, a := range addrs {
			path := fmt.Sprintf("%s[%d]", f.Addresses().Path(), i)
			if !slices.Contains(machineAddressTypes, a.Type) {
				c.addAt("inframachine.addresses.type", path+".type",
					"address type %q is not one of %q", a.Type, machineAddressTypes)
			}
			if a.Address == "" {
				c.addAt("inframachine.addresses.address", path+".address", "address is empty")
			}
		}
	}
	c.checkConditions("inframachine.conditions", f.Conditions())
	return c.sorted()
}

var machineAddressTypes = []contract.MachineAddressType{contract.MachineHostName, contract.MachineExternalIP, contract.MachineInternalIP, contract.MachineExternalDNS, contract.MachineInternalDNS}

// CheckBootstrapConfig checks a live bootstrap config against contract version v: shapes as CheckInfraCluster
// does, status.dataSecretName is set when the data secret is reported created, and conditions are valid.
func CheckBootstrapConfig(u *unstructured.Unstructured, v contract.Version) Violations {
	c, out := newObjectCheck(u, KindBootstrapConfig, v)
	if c == nil {
		return out
	}
	f := contract.BootstrapConfig(v)
	created, _ := f.DataSecretCreated().Get(u)
	if name, _ := f.DataSecretName().Get(u); created && name == "" {
		c.add("bootstrapconfig.dataSecretName", f.DataSecretName().Path(),
			"%s is true but status.dataSecretName is empty: name the bootstrap data Secret", f.DataSecretCreated().Path())
	}
	c.checkConditions("bootstrapconfig.conditions", f.Conditions())
	return c.sorted()
}

// CheckBootstrapSecret checks a bootstrap data Secret against the contract: key "value" present and not empty,
// key "format" (when present) "cloud-config" or "ignition", the cluster-name label present. When config (the
// bootstrap config that owns the Secret) is not nil it also checks the label equals the config's, the Secret
// is in the config's namespace and has the name in its status.dataSecretName (when set), and the Secret has a
// controller owner reference to the config (API group, kind, name and UID). Violations never contain the
// Secret's data.
func CheckBootstrapSecret(secret *corev1.Secret, config *unstructured.Unstructured) Violations {
	if secret == nil {
		return Violations{{Rule: "bootstrapsecret.nil", Object: "Secret", Message: "cannot check a nil Secret"}}
	}
	c := &objectCheck{name: "Secret/" + secret.Name}
	if value, ok := secretValue(secret, contract.BootstrapDataKey); !ok || len(value) == 0 {
		c.addAt("bootstrapsecret.value", "data."+contract.BootstrapDataKey,
			"key %q must hold the bootstrap data and must not be empty", contract.BootstrapDataKey)
	}
	if format, ok := secretValue(secret, contract.BootstrapFormatKey); ok && string(format) != contract.FormatCloudConfig && string(format) != contract.FormatIgnition {
		c.addAt("bootstrapsecret.format", "data."+contract.BootstrapFormatKey,
			"key %q must be %q or %q (value not shown)", contract.BootstrapFormatKey, contract.FormatCloudConfig, contract.FormatIgnition)
	}
	labelPath := "metadata.labels." + contract.ClusterNameLabel
	clusterName, hasLabel := secret.Labels[contract.ClusterNameLabel]
	if !hasLabel || clusterName == "" {
		c.addAt("bootstrapsecret.clusterName", labelPath, "label %q must name the Cluster", contract.ClusterNameLabel)
	}
	if config == nil {
		return c.sorted()
	}
	configID := config.GetKind() + "/" + config.GetName()
	if want := contract.ClusterNameOf(config); hasLabel && want != "" && clusterName != want {
		c.addAt("bootstrapsecret.clusterName", labelPath, "label %q is %q but %s has %q", contract.ClusterNameLabel, clusterName, configID, want)
	}
	if secret.Namespace != config.GetNamespace() {
		c.addAt("bootstrapsecret.namespace", "metadata.namespace",
			"Secret is in namespace %q, %s in %q: they must be in the same namespace", secret.Namespace, configID, config.GetNamespace())
	}
	if want, _, _ := unstructured.NestedString(config.Object, "status", "dataSecretName"); want != "" && want != secret.Name {
		c.addAt("bootstrapsecret.name", "metadata.name", "%s names Secret %q in status.dataSecretName, not %q", configID, want, secret.Name)
	}
	c.checkControllerRef(secret.OwnerReferences, config, configID)
	return c.sorted()
}

// secretValue returns a key of Data, or of StringData for a Secret not yet written.
func secretValue(s *corev1.Secret, key string) ([]byte, bool) {
	if v, ok := s.Data[key]; ok {
		return v, true
	}
	v, ok := s.StringData[key]
	return []byte(v), ok
}

func (c *objectCheck) checkControllerRef(refs []metav1.OwnerReference, config *unstructured.Unstructured, configID string) {
	const rule, path = "bootstrapsecret.ownerRef", "metadata.ownerReferences"
	i := slices.IndexFunc(refs, func(r metav1.OwnerReference) bool { return r.Controller != nil && *r.Controller })
	if i < 0 {
		c.addAt(rule, path, "no controller owner reference: set one to %s (controllerutil.SetControllerReference)", configID)
		return
	}
	ref := refs[i]
	refGV, _ := schema.ParseGroupVersion(ref.APIVersion)
	switch {
	case ref.Kind != config.GetKind() || ref.Name != config.GetName():
		c.addAt(rule, path, "controller owner is %s/%s, want %s", ref.Kind, ref.Name, configID)
	case refGV.Group != config.GroupVersionKind().Group:
		c.addAt(rule, path, "controller owner has API group %q, want %q", refGV.Group, config.GroupVersionKind().Group)
	case config.GetUID() != "" && ref.UID != config.GetUID():
		c.addAt(rule, path, "controller owner UID %q is not the UID %q of %s", ref.UID, config.GetUID(), configID)
	}
}

// objectCheck collects the violations of one object.
type objectCheck struct {
	u    *unstructured.Unstructured
	name string
	out  Violations
}

// sorted returns the violations in Violations.Sort order.
func (c *objectCheck) sorted() Violations {
	c.out.Sort()
	return c.out
}

func (c *objectCheck) add(rule string, path contract.Path, format string, args ...any) {
	c.addAt(rule, path.String(), format, args...)
}

func (c *objectCheck) addAt(rule, path, format string, args ...any) {
	c.out = append(c.out, Violation{Rule: rule, Object: c.name, Path: path, Message: fmt.Sprintf(format, args...)})
}

// newObjectCheck starts a check of u in role k and checks the shapes of its contract fields. It returns a nil
// check and the violations when u cannot be checked further.
func newObjectCheck(u *unstructured.Unstructured, k Kind, v contract.Version) (*objectCheck, Violations) {
	if u == nil || u.Object == nil {
		return nil, Violations{{Rule: "object.nil", Object: string(k), Message: "cannot check a nil object"}}
	}
	kind := u.GetKind()
	if kind == "" {
		kind = string(k)
	}
	c := &objectCheck{u: u, name: kind + "/" + u.GetName()}
	if !v.Valid() {
		c.addAt("object.version", "", "unknown contract version %q: use %q or %q", v, contract.V1Beta2, contract.V1Beta1)
		return nil, c.out
	}
	for _, r := range Rules(k, v) {
		c.checkShape(r, v, k)
	}
	return c, c.out
}

// checkShape checks that the field of rule r, when present, has the JSON type r asks for, and so do its items.
// A required field absent at v's path but present at the other version's path is reported too.
func (c *objectCheck) checkShape(r FieldRule, v contract.Version, k Kind) {
	raw, err := jsonvalue.Lookup(c.u.Object, r.Path)
	switch {
	case errors.Is(err, contract.ErrFieldNotFound):
		if r.Required {
			c.checkOtherShape(r, v, k)
		}
		return
	case err != nil:
		c.add(r.Rule, r.Path, "cannot read %s: %v: %s", r.Path, err, r.Hint)
		return
	}
	if got := valueType(raw); !typeMatches(got, r.Type) {
		c.add(r.Rule, r.Path, "%s is %s, want %s for contract %s: %s", r.Path, got, r.Type, v, r.Hint)
		return
	}
	if len(r.Items) == 0 {
		return
	}
	each := func(path string, item any) {
		m, ok := item.(map[string]any)
		if !ok {
			c.addAt(r.Rule, path, "item is %s, want object: %s", valueType(item), r.Hint)
			return
		}
		for _, ir := range r.Items {
			iraw, err := jsonvalue.Lookup(m, ir.Path)
			switch {
			case err != nil && ir.Required:
				c.addAt(ir.Rule, path+"."+ir.Path.String(), "%s is missing: %s", ir.Path, ir.Hint)
			case err == nil && !typeMatches(valueType(iraw), ir.Type):
				c.addAt(ir.Rule, path+"."+ir.Path.String(), "%s is %s, want %s: %s", ir.Path, valueType(iraw), ir.Type, ir.Hint)
			}
		}
	}
	switch t := raw.(type) {
	case []any:
		for i, item := range t {
			each(fmt.Sprintf("%s[%d]", r.Path, i), item)
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for key := range t {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		for _, key := range keys {
			each(fmt.Sprintf("%s[%q]", r.Path, key), t[key])
		}
	}
}

// checkOtherShape reports a required field that is absent at v's path but set at the other version's path.
func (c *objectCheck) checkOtherShape(r FieldRule, v contract.Version, k Kind) {
	other := pick(v, contract.V1Beta2, contract.V1Beta1)
	for _, o := range Rules(k, other) {
		if o.Rule != r.Rule || o.Path.String() == r.Path.String() {
			continue
		}
		if _, err := jsonvalue.Lookup(c.u.Object, o.Path); err == nil {
			c.add(r.Rule, r.Path, "%s is absent but %s is set: contract %s reads %s (the object has the %s shape): %s",
				r.Path, o.Path, v, r.Path, other, r.Hint)
		}
	}
}

// checkConditions checks that the conditions are valid metav1.Conditions with unique types.
func (c *objectCheck) checkConditions(rule string, f contract.Field[[]metav1.Condition]) {
	raw, err := jsonvalue.Lookup(c.u.Object, f.Path())
	if err != nil {
		return
	}
	items, ok := raw.([]any)
	if !ok {
		return // reported by checkShape
	}
	seen := map[string]bool{}
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		path := fmt.Sprintf("%s[%d]", f.Path(), i)
		typ, _ := m["type"].(string)
		status, _ := m["status"].(string)
		reason, _ := m["reason"].(string)
		switch {
		case typ == "":
			c.addAt(rule, path+".type", "condition type is empty")
		case seen[typ]:
			c.addAt(rule, path+".type", "condition type %q appears more than once", typ)
		}
		seen[typ] = true
		if s := metav1.ConditionStatus(status); s != metav1.ConditionTrue && s != metav1.ConditionFalse && s != metav1.ConditionUnknown {
			c.addAt(rule, path+".status", "condition %q has status %q, want True, False or Unknown", typ, status)
		}
		if _, isString := m["reason"].(string); isString && !conditionReasonPattern.MatchString(reason) {
			c.addAt(rule, path+".reason", "condition %q has reason %q, want a CamelCase identifier", typ, reason)
		}
		if ts, isString := m["lastTransitionTime"].(string); isString {
			if _, err := time.Parse(time.RFC3339, ts); err != nil {
				c.addAt(rule, path+".lastTransitionTime", "condition %q has lastTransitionTime %q, want RFC 3339", typ, ts)
			}
		}
	}
}

// valueType returns the JSON type of an unstructured value: integer for whole numbers, number for others.
func valueType(v any) string {
	switch t := v.(type) {
	case int64, int32, int:
		return "integer"
	case float64:
		if t == float64(int64(t)) {
			return "integer"
		}
		return "number"
	}
	return jsonvalue.KindOf(v)
}

// typeMatches reports whether a value of JSON type got is acceptable where want is asked.
func typeMatches(got, want string) bool {
	return got == want || want == "number" && got == "integer"
}
