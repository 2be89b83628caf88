package lint

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/jsonvalue"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// objectMetaType is the type the metadata of an API type must have.
var objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()

// CheckType checks that the Go type of obj (e.g. &MemCluster{}) has, in its JSON form, every field that
// contract version v asks of role k (see Rules), with the right JSON type: bool is boolean, strings are
// string, integers are integer, structs and maps are object, slices are array, metav1.Time is string. It
// follows pointers, embedded structs and `json:",inline"` fields as encoding/json and controller-gen do.
// It also checks that the type has metav1.TypeMeta inline and metadata of type metav1.ObjectMeta, and,
// except for templates, a status struct.
//
// A type still in the shape of the other contract version gets violations that say so, e.g. status.ready
// without status.initialization.provisioned, or failure domains as a map under v1beta2. An InfraCluster,
// InfraMachine or InfraMachinePool type whose SetProvisioned (contract.ProvisionedAccessor) does not write the
// flag of contract version v on a new object (a v1beta1 setter left writing status.ready) gets a
// RuleGoTypeSetProvisioned violation. Use it in a unit test of the provider's API package:
//
//	require.Empty(t, lint.CheckType(&MemCluster{}, lint.KindInfraCluster, contract.V1Beta2))
func CheckType(obj any, k Kind, v contract.Version) Violations {
	if obj == nil {
		return Violations{{Rule: "gotype.struct", Object: "<nil>", Message: "cannot check a nil value: pass a pointer to the API type, e.g. &MyCluster{}"}}
	}
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := t.String()
	if t.Kind() != reflect.Struct {
		return Violations{{Rule: "gotype.struct", Object: name, Message: fmt.Sprintf("%s is a %s, not a struct: pass a pointer to the API type", name, t.Kind())}}
	}
	if !v.Valid() {
		return Violations{{Rule: "gotype.version", Object: name, Message: fmt.Sprintf("unknown contract version %q: use %q or %q", v, contract.V1Beta2, contract.V1Beta1)}}
	}
	rules := Rules(k, v)
	if rules == nil {
		return Violations{{Rule: "gotype.kind", Object: name, Message: fmt.Sprintf("unknown contract role %q", k)}}
	}
	var out Violations
	add := func(rule string, path contract.Path, format string, args ...any) {
		out = append(out, Violation{Rule: rule, Object: name, Path: path.String(), Message: fmt.Sprintf(format, args...)})
	}
	if !hasTypeMeta(t) {
		add("gotype.typemeta", nil, "embed metav1.TypeMeta with `json:\",inline\"` so that apiVersion and kind are serialized")
	}
	if meta, ok := resolve(t, contract.Path{"metadata"}); !ok || meta != objectMetaType {
		add("gotype.objectmeta", contract.Path{"metadata"}, "add ObjectMeta metav1.ObjectMeta `json:\"metadata,omitempty\"`")
	}
	if !isTemplate(k) {
		if st, ok := resolve(t, contract.Path{"status"}); !ok || st.Kind() != reflect.Struct {
			add("gotype.status", contract.Path{"status"}, "add a Status struct field with `json:\"status,omitempty\"` (and the +kubebuilder:subresource:status marker)")
		}
	}
	for _, r := range rules {
		out = append(out, checkRuleOnType(t, name, r, v)...)
	}
	out = append(out, checkSetProvisioned(t, name, k, v)...)
	out.Sort()
	return out
}

func isTemplate(k Kind) bool {
	return k == KindInfraClusterTemplate || k == KindInfraMachineTemplate || k == KindBootstrapConfigTemplate ||
		k == KindInfraMachinePoolTemplate
}

// checkRuleOnType checks one rule, and the rules of its items, against the Go type t.
func checkRuleOnType(t reflect.Type, name string, r FieldRule, v contract.Version) Violations {
	var out Violations
	add := func(path contract.Path, msg string) {
		out = append(out, Violation{Rule: r.Rule, Object: name, Path: path.String(), Message: msg})
	}
	ft, ok := resolve(t, r.Path)
	if !ok {
		if r.Required {
			add(r.Path, "missing required field "+r.Path.String()+otherShapeNote(t, r, v)+": "+r.Hint)
		}
		return out
	}
	got := jsonvalue.TypeOf(ft)
	if got != jsonvalue.Any && got != r.Type {
		add(r.Path, fmt.Sprintf("%s is %s (Go %s), want %s%s: %s", r.Path, got, goTypeName(ft), r.Type, otherShapeNote(t, r, v), r.Hint))
		return out
	}
	item := elemType(ft)
	if item == nil || len(r.Items) == 0 {
		return out
	}
	if strings.HasSuffix(r.Rule, ".conditions") && v == contract.V1Beta2 {
		if _, ok := resolve(item, contract.Path{"severity"}); ok {
			add(r.Path, fmt.Sprintf("%s items have a severity field: they are v1beta1 Cluster API conditions, contract v1beta2 wants []metav1.Condition", r.Path))
			return out
		}
	}
	for _, ir := range r.Items {
		full := append(append(contract.Path{}, r.Path...), ir.Path...)
		it, ok := resolve(item, ir.Path)
		if !ok {
			if ir.Required {
				out = append(out, Violation{Rule: ir.Rule, Object: name, Path: full.String(),
					Message: fmt.Sprintf("items of %s (Go %s) miss required field %s: %s", r.Path, goTypeName(item), ir.Path, ir.Hint)})
			}
			continue
		}
		if got := jsonvalue.TypeOf(it); got != jsonvalue.Any && got != ir.Type {
			out = append(out, Violation{Rule: ir.Rule, Object: name, Path: full.String(),
				Message: fmt.Sprintf("%s is %s (Go %s), want %s: %s", full, got, goTypeName(it), ir.Type, ir.Hint)})
		}
	}
	return out
}

// otherShapeNote explains a missing or mistyped field when the type has the shape of the other contract version.
func otherShapeNote(t reflect.Type, r FieldRule, v contract.Version) string {
	other := pick(v, contract.V1Beta2, contract.V1Beta1)
	for _, o := range Rules(ruleKind(r.Rule), other) {
		if o.Rule != r.Rule {
			continue
		}
		ft, ok := resolve(t, o.Path)
		if !ok || jsonvalue.TypeOf(ft) != o.Type {
			return ""
		}
		if o.Path.String() == r.Path.String() {
			return fmt.Sprintf(" (that is the %s shape)", other)
		}
		return fmt.Sprintf(" but %s exists: the type has the %s shape", o.Path, other)
	}
	return ""
}

// ruleKind returns the role a rule identifier belongs to, from its prefix.
func ruleKind(rule string) Kind {
	prefix, _, _ := strings.Cut(rule, ".")
	switch prefix {
	case "infracluster":
		return KindInfraCluster
	case "inframachine":
		return KindInfraMachine
	case "inframachinepool":
		return KindInfraMachinePool
	case "bootstrapconfig":
		return KindBootstrapConfig
	}
	return ""
}

// hasTypeMeta reports whether t serializes apiVersion and kind as strings at its top level.
func hasTypeMeta(t reflect.Type) bool {
	av, ok1 := resolve(t, contract.Path{"apiVersion"})
	k, ok2 := resolve(t, contract.Path{"kind"})
	return ok1 && ok2 && av.Kind() == reflect.String && k.Kind() == reflect.String
}

// resolve returns the Go type of the JSON field at path in t, following pointers, inline structs and maps.
func resolve(t reflect.Type, path contract.Path) (reflect.Type, bool) {
	for _, name := range path {
		t = jsonvalue.Deref(t)
		switch t.Kind() {
		case reflect.Struct:
			f, ok := jsonFields(t, 0)[name]
			if !ok {
				return nil, false
			}
			t = f
		case reflect.Map:
			if t.Key().Kind() != reflect.String {
				return nil, false
			}
			t = t.Elem()
		default:
			return nil, false
		}
	}
	return jsonvalue.Deref(t), true
}

// goTypeName names a Go type for messages; anonymous structs are not spelled out.
func goTypeName(t reflect.Type) string {
	if t.Name() == "" && t.Kind() == reflect.Struct {
		return "anonymous struct"
	}
	return t.String()
}

// maxInlineDepth bounds the walk through inline structs, so that a self-embedding type cannot loop.
const maxInlineDepth = 16

// jsonFields returns the JSON fields of struct type t by name, as encoding/json sees them: tag names, Go
// names for untagged fields, fields of embedded structs and `json:",inline"` fields promoted, `json:"-"`
// and unexported fields left out. Shallower fields win over promoted ones.
func jsonFields(t reflect.Type, depth int) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var inline []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := jsonvalue.Deref(f.Type)
		isInline := name == "" && (f.Anonymous || hasOption(opts, "inline")) && ft.Kind() == reflect.Struct
		if isInline {
			inline = append(inline, ft)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	if depth >= maxInlineDepth {
		return out
	}
	for _, it := range inline {
		for name, ft := range jsonFields(it, depth+1) {
			if _, ok := out[name]; !ok {
				out[name] = ft
			}
		}
	}
	return out
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// elemType returns the item type of a slice or array, or the value type of a map, or nil.
func elemType(t reflect.Type) reflect.Type {
	t = jsonvalue.Deref(t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return jsonvalue.Deref(t.Elem())
	}
	return nil
}
