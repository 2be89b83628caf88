package templates_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/templates"
)

// A template's webhook refuses a changed spec and names the field; the topology controller's dry-runs pass.
func ExampleValidateImmutable() {
	oldSpec := map[string]any{"template": map[string]any{"spec": map[string]any{"flavor": "small"}}}
	newSpec := map[string]any{"template": map[string]any{"spec": map[string]any{"flavor": "large"}}}
	errs := templates.ValidateImmutable(context.Background(), &metav1.ObjectMeta{Name: "workers"}, field.NewPath("spec"), oldSpec, newSpec)
	fmt.Println(errs.ToAggregate())
	// Output:
	// spec.template.spec.flavor: Forbidden: field is immutable: create a new template and point its users at it
}
