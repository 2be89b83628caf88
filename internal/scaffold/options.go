package scaffold

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// DefaultDomain is the domain of the API group when Options.Domain is empty: the group is
// infrastructure.cluster.x-k8s.io, as for Cluster API's own providers.
const DefaultDomain = "cluster.x-k8s.io"

// CapkitModule is the module path of capkit, which a scaffold requires.
const CapkitModule = "github.com/capkit/capkit"

// Bounds of the options.
const (
	maxModuleLen   = 200
	maxProviderLen = 24
	maxDomainLen   = 200
	maxPathLen     = 4096
)

// ErrInvalidOption is wrapped by the errors of Init and CreateMachinePool for an option that is not valid.
var ErrInvalidOption = errors.New("invalid option")

var (
	providerRE = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	elementRE  = regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)
	hostRE     = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)
	semverRE   = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
)

func invalid(field, value, why string) error {
	return fmt.Errorf("cannot use %s %q: %s: %w", field, value, why, ErrInvalidOption)
}

// resolved are the options with their defaults, checked.
type resolved struct {
	Options
	kind string // the provider's name as the start of a Go identifier: "Acme"
}

// resolve checks o and fills its defaults.
func resolve(o Options) (resolved, error) {
	if o.Domain == "" {
		o.Domain = DefaultDomain
	}
	if err := checkModule(o.Module); err != nil {
		return resolved{}, err
	}
	switch {
	case len(o.Provider) > maxProviderLen:
		return resolved{}, invalid("Provider", o.Provider, fmt.Sprintf("longer than %d characters", maxProviderLen))
	case !providerRE.MatchString(o.Provider):
		return resolved{}, invalid("Provider", o.Provider, "want a lower-case letter then lower-case letters and digits (it starts the kinds' names)")
	}
	switch {
	case len(o.Domain) > maxDomainLen:
		return resolved{}, invalid("Domain", o.Domain, fmt.Sprintf("longer than %d characters", maxDomainLen))
	case len(validation.IsDNS1123Subdomain("infrastructure."+o.Domain)) > 0 || !strings.Contains(o.Domain, "."):
		return resolved{}, invalid("Domain", o.Domain, "want a DNS subdomain with a dot, e.g. example.com")
	}
	if o.CapkitVersion != "" && !semverRE.MatchString(o.CapkitVersion) {
		return resolved{}, invalid("CapkitVersion", o.CapkitVersion, "want a module version such as v0.1.0")
	}
	if o.CapkitReplace != "" {
		if len(o.CapkitReplace) > maxPathLen || strings.ContainsAny(o.CapkitReplace, "\"\\\n\r\t`") ||
			!localPath(o.CapkitReplace) {
			return resolved{}, invalid("CapkitReplace", o.CapkitReplace, "want an absolute path or one starting with ./ or ../, without quotes or backslashes")
		}
	}
	if o.CapkitVersion == "" {
		o.CapkitVersion = ReleasedVersion()
	}
	return resolved{Options: o, kind: strings.ToUpper(o.Provider[:1]) + o.Provider[1:]}, nil
}

// checkModule checks a module path as the go command does, more strictly: slash-separated elements of
// letters, digits and ._~-, the first a lower-case host name with a dot.
func checkModule(m string) error {
	if len(m) > maxModuleLen {
		return invalid("Module", m, fmt.Sprintf("longer than %d characters", maxModuleLen))
	}
	elems := strings.Split(m, "/")
	if !hostRE.MatchString(elems[0]) {
		return invalid("Module", m, "want a path whose first element is a lower-case host name with a dot, e.g. github.com/acme/cluster-api-provider-acme")
	}
	for _, e := range elems[1:] {
		if !elementRE.MatchString(e) || strings.HasPrefix(e, ".") || strings.HasSuffix(e, ".") {
			return invalid("Module", m, fmt.Sprintf("element %q is empty, starts or ends with a dot or holds a character other than letters, digits and ._~-", e))
		}
	}
	if m == CapkitModule || strings.HasPrefix(m, CapkitModule+"/") {
		return invalid("Module", m, "is capkit's own module")
	}
	return nil
}

// localPath reports whether p is a path a replace directive takes as a folder: absolute, or starting with ./ or ../.
func localPath(p string) bool {
	return filepath.IsAbs(p) || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}
