package components

import "fmt"

// injectCAFromAnnotation is cert-manager's annotation that injects the CA of a Certificate into a webhook
// configuration or a CRD's conversion webhook.
const injectCAFromAnnotation = "cert-manager.io/inject-ca-from"

// fixWebhookConfiguration points the webhooks of o at the manager's Service and lets cert-manager inject the CA
// of the serving Certificate.
func fixWebhookConfiguration(n names, o object) error {
	hooks, ok := o["webhooks"].([]any)
	if !ok {
		return fmt.Errorf("cannot read the webhooks of %s: want a list", ref(o))
	}
	for i, h := range hooks {
		svc, ok := nested(h, "clientConfig", "service")
		if !ok {
			return fmt.Errorf("cannot read webhooks[%d].clientConfig.service of %s", i, ref(o))
		}
		svc["name"] = n.webhookService
		svc["namespace"] = n.namespace
	}
	child(meta(o), "annotations")[injectCAFromAnnotation] = n.namespace + "/" + n.certificate
	return nil
}

// certificateObjects returns the cert-manager Issuer and Certificate of the webhook server (cert-manager types
// are written as maps, to keep cert-manager out of the module).
func certificateObjects(n names) []object {
	host := n.webhookService + "." + n.namespace + ".svc"
	return []object{
		{"apiVersion": "cert-manager.io/v1", "kind": "Issuer", "metadata": map[string]any{"name": n.issuer},
			"spec": map[string]any{"selfSigned": map[string]any{}}},
		{"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": map[string]any{"name": n.certificate},
			"spec": map[string]any{
				"dnsNames":   []any{host, host + ".cluster.local"},
				"issuerRef":  map[string]any{"kind": "Issuer", "name": n.issuer},
				"secretName": n.certSecret,
			}},
	}
}

// conversionPath is where controller-runtime's webhook server serves CRD conversion.
const conversionPath = "/convert"

// fixCRDConversion gives a CRD with more than one version, which the API server converts between, a conversion
// webhook: the manager's Service at /convert, with the CA of the serving Certificate injected by cert-manager.
// It replaces any conversion the CRD has (controller-gen writes none) and leaves a single-version CRD as it is.
func fixCRDConversion(n names, crd object) error {
	raw, _ := nested(crd, "spec")
	versions, ok := raw["versions"].([]any)
	if !ok {
		return fmt.Errorf("cannot read the versions of %s: want a list", ref(crd))
	}
	if len(versions) < 2 {
		return nil
	}
	raw["conversion"] = map[string]any{
		"strategy": "Webhook",
		"webhook": map[string]any{
			"conversionReviewVersions": []any{"v1"},
			"clientConfig": map[string]any{"service": map[string]any{
				"name": n.webhookService, "namespace": n.namespace, "path": conversionPath}},
		},
	}
	child(meta(crd), "annotations")[injectCAFromAnnotation] = n.namespace + "/" + n.certificate
	return nil
}
