package clusterctl

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/capkit/capkit/contract/lint"
)

// RuleComponentsConversionWebhook is the rule that a CRD of a components file with more than one version, between
// which the API server converts, either has a conversion webhook whose Service is in the components and whose
// cert-manager.io/inject-ca-from annotation names a Certificate of the components, or has conversion strategy
// None (the default) and the same schema in every version the API server serves or stores. Otherwise clusterctl
// init installs a CRD whose conversion fails (no Service, no CA injected) or prunes the fields one version's
// schema lacks.
const RuleComponentsConversionWebhook = "components.conversion-webhook"

// certManagerGroup is the API group of cert-manager's Certificate.
const certManagerGroup = "cert-manager.io"

// checkConversion checks the conversion of the multi-version CRDs of a components file (RuleComponentsConversionWebhook).
func (r release) checkConversion(f *YAMLFile) Findings {
	var out Findings
	services, certificates := componentNames(f)
	for _, e := range r.crds {
		if e.doc.File != f.Name || len(e.crd.Spec.Versions) < 2 {
			continue
		}
		add := func(path, format string, args ...any) {
			out = append(out, finding(e.doc, lint.Violation{Rule: RuleComponentsConversionWebhook, Object: e.doc.ObjectRef(), Path: path,
				Message: fmt.Sprintf(format, args...)}))
		}
		conv := e.crd.Spec.Conversion
		switch {
		case conv == nil || conv.Strategy == "" || conv.Strategy == apiextensionsv1.NoneConverter:
			if a, b, differ := differentSchemas(e.crd.Spec.Versions); differ {
				add("spec.conversion", "versions %q and %q have different schemas but spec.conversion.strategy is None (the default): the API server stores every version in one form and prunes the fields a version's schema lacks; "+
					"set spec.conversion to strategy Webhook with the manager's webhook Service (path /convert) and annotate the CRD %s: <namespace>/<certificate> (release/components does both), or give the versions one schema",
					a, b, injectCAFromAnnotation)
			}
		case conv.Strategy == apiextensionsv1.WebhookConverter:
			if conv.Webhook != nil && conv.Webhook.ClientConfig != nil && conv.Webhook.ClientConfig.Service != nil {
				if name := conv.Webhook.ClientConfig.Service.Name; !slices.Contains(services, name) {
					add("spec.conversion.webhook.clientConfig.service.name", "the conversion webhook names Service %q, which is not in the components (Services: %s): the API server cannot call it, so reading or writing any version but the stored one fails; name the manager's webhook Service or add it",
						name, listOrNone(services))
				}
			}
			value, ok := e.crd.Annotations[injectCAFromAnnotation]
			ns, name, _ := strings.Cut(value, "/")
			if ok && ns != "" && name != "" && !strings.Contains(name, "/") && !slices.Contains(certificates, name) {
				add("metadata.annotations", "annotation %q names Certificate %q, which is not in the components (Certificates: %s): cert-manager injects no CA into the conversion webhook, so the API server does not trust it; name the webhook server's Certificate or add it",
					injectCAFromAnnotation, name, listOrNone(certificates))
			}
		}
	}
	return out
}

// componentNames returns the names of the Services and of the cert-manager Certificates of a components file.
func componentNames(f *YAMLFile) (services, certificates []string) {
	for _, d := range f.Documents {
		gvk := d.Object.GroupVersionKind()
		switch {
		case gvk.Group == "" && gvk.Kind == "Service":
			services = append(services, d.Object.GetName())
		case gvk.Group == certManagerGroup && gvk.Kind == "Certificate":
			certificates = append(certificates, d.Object.GetName())
		}
	}
	return services, certificates
}

// differentSchemas returns the first two versions, of those served or stored, whose schemas differ.
func differentSchemas(versions []apiextensionsv1.CustomResourceDefinitionVersion) (string, string, bool) {
	var first *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range versions {
		v := &versions[i]
		if !v.Served && !v.Storage {
			continue
		}
		if first == nil {
			first = v
			continue
		}
		if !equality.Semantic.DeepEqual(schemaOf(first), schemaOf(v)) {
			return first.Name, v.Name, true
		}
	}
	return "", "", false
}

// schemaOf returns the OpenAPI schema of a CRD version, or nil.
func schemaOf(v *apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.JSONSchemaProps {
	if v.Schema == nil {
		return nil
	}
	return v.Schema.OpenAPIV3Schema
}
