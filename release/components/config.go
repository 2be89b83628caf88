package components

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ErrInvalidConfig is wrapped by the errors of Config.Validate and Build about a Config field.
var ErrInvalidConfig = errors.New("invalid config")

// Config names the provider-specific parts of infrastructure-components.yaml. Name, Image, ConfigDir and
// Generator are required; Namespace and Prefix default to values derived from Name.
type Config struct {
	// Name is the provider's clusterctl name, a lower-case DNS label such as "memcloud". Every object gets the
	// label cluster.x-k8s.io/provider: infrastructure-<Name>, the value clusterctl init looks for, and the
	// header of the file names it.
	Name string
	// Image is the image of the manager container, usually a clusterctl variable with a default, such as
	// "${MEMCLOUD_IMAGE:=docker.io/capkit/memcloud:dev}".
	Image string
	// ConfigDir is the folder holding what controller-gen writes: crd/bases/*.yaml, rbac/role.yaml (the single
	// ClusterRole manager-role) and, for a provider with admission webhooks, webhook/manifests.yaml.
	ConfigDir string
	// Generator is the command line that writes the file, named in its "DO NOT EDIT" header, such as
	// "go run ./examples/memcloud/hack/components".
	Generator string
	// Namespace is the Namespace of the namespaced objects, "<Name>-system" when empty. clusterctl init moves
	// them to its target namespace.
	Namespace string
	// Prefix starts the name of every object the builder adds or renames (the Deployment
	// "<Prefix>controller-manager", the ServiceAccount "<Prefix>manager", the ClusterRole "<Prefix>manager-role",
	// the Service "<Prefix>webhook-service", …), "<Name>-" when empty.
	Prefix string
	// ManagerArgs are appended to the arguments of the manager container, after the ones every manager gets
	// (--leader-elect, --health-probe-bind-address, --webhook-port and --webhook-cert-dir). Empty by default.
	ManagerArgs []string
}

// namespaceOrDefault returns Namespace, or "<Name>-system" when it is empty.
func (c Config) namespaceOrDefault() string {
	if c.Namespace != "" {
		return c.Namespace
	}
	return c.Name + "-system"
}

// prefixOrDefault returns Prefix, or "<Name>-" when it is empty.
func (c Config) prefixOrDefault() string {
	if c.Prefix != "" {
		return c.Prefix
	}
	return c.Name + "-"
}

// Validate returns an error wrapping ErrInvalidConfig, naming the first field that is missing or invalid and
// its value, or nil when c can build components.
func (c Config) Validate() error {
	if msgs := validation.IsDNS1123Label(c.Name); len(msgs) > 0 {
		return fieldError("Name", c.Name, msgs...)
	}
	if msgs := validation.IsValidLabelValue(providerPrefix + c.Name); len(msgs) > 0 {
		return fieldError("Name", c.Name, fmt.Sprintf("gives provider label %q: %s", providerPrefix+c.Name, msgs[0]))
	}
	if strings.TrimSpace(c.Image) == "" || strings.ContainsAny(c.Image, " \t\r\n") {
		return fieldError("Image", c.Image, "must be an image reference without spaces")
	}
	if c.ConfigDir == "" {
		return fieldError("ConfigDir", c.ConfigDir, "must name the folder controller-gen writes to")
	}
	if strings.TrimSpace(c.Generator) == "" || strings.ContainsAny(c.Generator, "`\r\n") {
		return fieldError("Generator", c.Generator, "must be a command line on one line, without backquotes")
	}
	if msgs := validation.IsDNS1123Label(c.namespaceOrDefault()); len(msgs) > 0 {
		return fieldError("Namespace", c.namespaceOrDefault(), msgs...)
	}
	if err := c.validatePrefix(); err != nil {
		return err
	}
	for i, a := range c.ManagerArgs {
		if strings.TrimSpace(a) == "" {
			return fieldError(fmt.Sprintf("ManagerArgs[%d]", i), a, "must not be empty")
		}
	}
	return nil
}

// validatePrefix checks the names that start with the prefix: the Service name must be a DNS-1035 label, the
// Deployment name a DNS label (it is also the value of the selector label), the others DNS subdomains.
func (c Config) validatePrefix() error {
	n := newNames(c)
	check := func(name string, valid func(string) []string) error {
		if msgs := valid(name); len(msgs) > 0 {
			return fieldError("Prefix", c.prefixOrDefault(), fmt.Sprintf("gives name %q: %s", name, msgs[0]))
		}
		return nil
	}
	if err := check(n.webhookService, validation.IsDNS1035Label); err != nil {
		return err
	}
	if err := check(n.manager, validation.IsDNS1123Label); err != nil {
		return err
	}
	for _, name := range []string{n.serviceAccount, n.managerRole, n.managerBinding, n.leaderElectionRole,
		n.leaderElectionBinding, n.aggregatedRole, n.certificate, n.certSecret, n.issuer} {
		if err := check(name, validation.IsDNS1123Subdomain); err != nil {
			return err
		}
	}
	return nil
}

// fieldError returns the error about a Config field and its value.
func fieldError(field, value string, msgs ...string) error {
	return fmt.Errorf("cannot use %s %q: %w: %s", field, value, ErrInvalidConfig, strings.Join(msgs, "; "))
}
