package components_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/capkit/capkit/release/clusterctl"
	"github.com/capkit/capkit/release/components"
)

// ExampleBuild builds the components of a provider named widgetcloud from a config folder controller-gen filled
// (a CRD, the manager-role ClusterRole and a webhook configuration), and prints the objects.
func ExampleBuild() {
	data, err := components.Build(components.Config{
		Name:      "widgetcloud",
		Image:     "${WIDGETCLOUD_IMAGE:=docker.io/example/widgetcloud:dev}",
		ConfigDir: "testdata/config",
		Generator: "go run ./hack/components",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := clusterctl.ReadYAML(bytes.NewReader(data), "infrastructure-components.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range f.Documents {
		if ns := d.Object.GetNamespace(); ns != "" {
			fmt.Println(d.ObjectRef(), "in", ns)
		} else {
			fmt.Println(d.ObjectRef())
		}
	}
	// Output:
	// Namespace/widgetcloud-system
	// CustomResourceDefinition/widgets.infrastructure.example.com
	// ClusterRole/widgetcloud-manager-role
	// ServiceAccount/widgetcloud-manager in widgetcloud-system
	// ClusterRoleBinding/widgetcloud-manager-rolebinding
	// Role/widgetcloud-leader-election-role in widgetcloud-system
	// RoleBinding/widgetcloud-leader-election-rolebinding in widgetcloud-system
	// ClusterRole/widgetcloud-capi-aggregated-role
	// Service/widgetcloud-webhook-service in widgetcloud-system
	// Deployment/widgetcloud-controller-manager in widgetcloud-system
	// Issuer/widgetcloud-selfsigned-issuer in widgetcloud-system
	// Certificate/widgetcloud-serving-cert in widgetcloud-system
	// ValidatingWebhookConfiguration/validating-webhook-configuration
}

// ExampleConfig_Validate shows the error about a missing field; Build returns the same error.
func ExampleConfig_Validate() {
	err := components.Config{Name: "widgetcloud", ConfigDir: "config", Generator: "go run ./hack/components"}.Validate()
	fmt.Println(err)
	fmt.Println(errors.Is(err, components.ErrInvalidConfig))
	// Output:
	// cannot use Image "": invalid config: must be an image reference without spaces
	// true
}
