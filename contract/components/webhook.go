package components

import "fmt"

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
	child(meta(o), "annotations")["cert-manager.io/inject-ca-from"] = n.namespace + "/" + n.certificate
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
