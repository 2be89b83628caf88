package ipam

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// kindRE is the pattern of IPPoolReference.kind in Cluster API's CRD (at most 63 characters).
var kindRE = regexp.MustCompile(`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`)

// claimNames checks reqs and returns the name of each request's claim for machine, in request order.
func claimNames(machine string, reqs []Request) ([]string, error) {
	if len(reqs) > MaxRequests {
		return nil, fmt.Errorf("cannot use %d requests: more than %d: %w", len(reqs), MaxRequests, ErrInvalid)
	}
	names := make([]string, len(reqs))
	perDevice := map[string]int{}
	seen := map[Request]int{}
	for i, r := range reqs {
		if err := checkRequest(r); err != nil {
			return nil, fmt.Errorf("cannot use requests[%d]: %w", i, err)
		}
		if j, dup := seen[r]; dup {
			return nil, fmt.Errorf("cannot use requests[%d]: device %q asks pool %s again (requests[%d]): %w", i, r.Device, r.Pool, j, ErrInvalid)
		}
		seen[r] = i
		names[i] = ClaimName(machine, r.Device, perDevice[r.Device])
		perDevice[r.Device]++
	}
	return names, nil
}

func checkRequest(r Request) error {
	if len(r.Device) > MaxDeviceLength || len(validation.IsDNS1123Label(r.Device)) > 0 {
		return fmt.Errorf("device %q is not a DNS label of at most %d characters: %w", r.Device, MaxDeviceLength, ErrInvalid)
	}
	p := r.Pool
	if len(validation.IsDNS1123Subdomain(p.APIGroup)) > 0 {
		return fmt.Errorf("pool.apiGroup %q is not a DNS subdomain: %w", p.APIGroup, ErrInvalid)
	}
	if len(p.Kind) > validation.DNS1123LabelMaxLength || !kindRE.MatchString(p.Kind) {
		return fmt.Errorf("pool.kind %q is not a kind of at most %d characters: %w", p.Kind, validation.DNS1123LabelMaxLength, ErrInvalid)
	}
	if len(validation.IsDNS1123Subdomain(p.Name)) > 0 {
		return fmt.Errorf("pool.name %q is not a DNS subdomain: %w", p.Name, ErrInvalid)
	}
	return nil
}

// checkCluster checks a Cluster name for spec.clusterName (1..63 characters) and the cluster-name label.
func checkCluster(cluster string) error {
	if len(validation.IsDNS1123Subdomain(cluster)) > 0 || len(validation.IsValidLabelValue(cluster)) > 0 {
		return fmt.Errorf("cannot use cluster name %q: not a DNS subdomain of at most %d characters: %w", cluster, maxLabelValueLength, ErrInvalid)
	}
	return nil
}

// Validate checks p, found at path of an object, as its CRD schema does, for a webhook: an API group and a name
// that are DNS subdomains, a kind that starts with a letter and holds at most 63 alphanumerics or '-'. Each error
// names the field and the value.
func (p PoolRef) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	subdomain := func(child, value, what string) {
		switch {
		case value == "":
			errs = append(errs, field.Required(path.Child(child), what))
		case len(validation.IsDNS1123Subdomain(value)) > 0:
			errs = append(errs, field.Invalid(path.Child(child), value, "must be a DNS subdomain: at most 253 lowercase alphanumerics, '-' and '.', "+
				"starting and ending with an alphanumeric"))
		}
	}
	subdomain("apiGroup", p.APIGroup, "the API group of the pool")
	switch {
	case p.Kind == "":
		errs = append(errs, field.Required(path.Child("kind"), "the kind of the pool"))
	case len(p.Kind) > validation.DNS1123LabelMaxLength || !kindRE.MatchString(p.Kind):
		errs = append(errs, field.Invalid(path.Child("kind"), p.Kind,
			"must be at most 63 alphanumerics or '-', start with a letter and end with an alphanumeric"))
	}
	subdomain("name", p.Name, "the name of the pool")
	return errs
}
