package capienv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// WebhookConfigurations reads the admission webhook configurations of a component from its manifest (the
// file Component.WebhookManifest names) and points them at a webhook server on 127.0.0.1:port that
// presents a certificate signed by caPEM. Their names get the prefix "capkit-<component>-", as kustomize
// would give them a prefix, so that the configurations of several managers do not collide.
func WebhookConfigurations(manifest []byte, c Component, port int, caPEM []byte) ([]client.Object, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifest)))
	var out []client.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read webhook manifest of %q: %w", c.Name, err)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("cannot decode webhook manifest of %q: %w", c.Name, err)
		}
		switch tm.Kind {
		case "":
			continue
		case "MutatingWebhookConfiguration":
			w := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := yaml.Unmarshal(doc, w); err != nil {
				return nil, fmt.Errorf("cannot decode %s of %q: %w", tm.Kind, c.Name, err)
			}
			for i := range w.Webhooks {
				if err := pointAt(&w.Webhooks[i].ClientConfig, w.Webhooks[i].Name, port, caPEM); err != nil {
					return nil, err
				}
			}
			w.Name = "capkit-" + c.Name + "-" + w.Name
			out = append(out, w)
		case "ValidatingWebhookConfiguration":
			w := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := yaml.Unmarshal(doc, w); err != nil {
				return nil, fmt.Errorf("cannot decode %s of %q: %w", tm.Kind, c.Name, err)
			}
			for i := range w.Webhooks {
				if err := pointAt(&w.Webhooks[i].ClientConfig, w.Webhooks[i].Name, port, caPEM); err != nil {
					return nil, err
				}
			}
			w.Name = "capkit-" + c.Name + "-" + w.Name
			out = append(out, w)
		default:
			return nil, fmt.Errorf("cannot use webhook manifest of %q: unexpected kind %q", c.Name, tm.Kind)
		}
	}
	return out, nil
}

func pointAt(cc *admissionregistrationv1.WebhookClientConfig, name string, port int, caPEM []byte) error {
	if cc.Service == nil || cc.Service.Path == nil {
		return fmt.Errorf("cannot point webhook %q at 127.0.0.1: clientConfig.service.path is not set", name)
	}
	url := fmt.Sprintf("https://127.0.0.1:%d%s", port, *cc.Service.Path)
	cc.Service = nil
	cc.URL = &url
	cc.CABundle = caPEM
	return nil
}

// registerWebhooks creates the component's admission webhook configurations and turns on webhook
// conversion for its CRDs; it returns what it changed, for unregisterWebhooks.
func registerWebhooks(ctx context.Context, c client.Client, moduleDir string, comp Component, port int, caPEM []byte) ([]client.Object, []string, error) {
	manifest, err := os.ReadFile(comp.WebhookManifest(moduleDir))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read webhook manifest of %q: %w", comp.Name, err)
	}
	objs, err := WebhookConfigurations(manifest, comp, port, caPEM)
	if err != nil {
		return nil, nil, err
	}
	var created []client.Object
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return created, nil, fmt.Errorf("cannot create webhook configuration %q: %w", o.GetName(), err)
		}
		created = append(created, o)
	}
	crds, err := componentCRDs(moduleDir, comp)
	if err != nil {
		return created, nil, err
	}
	var converted []string
	url := fmt.Sprintf("https://127.0.0.1:%d/convert", port)
	for _, crd := range crds {
		if len(crd.Spec.Versions) < 2 {
			continue
		}
		conv := &apiextensionsv1.CustomResourceConversion{
			Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
				ConversionReviewVersions: []string{"v1"},
			},
		}
		if err := setConversion(ctx, c, crd.Name, conv); err != nil {
			return created, converted, err
		}
		converted = append(converted, crd.Name)
	}
	return created, converted, nil
}

// unregisterWebhooks deletes the webhook configurations and sets the conversion of the CRDs back to None,
// so that the API server works again once the managers are gone.
func unregisterWebhooks(ctx context.Context, c client.Client, objs []client.Object, crds []string) error {
	var errs []error
	for _, o := range objs {
		if err := c.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("cannot delete webhook configuration %q: %w", o.GetName(), err))
		}
	}
	for _, name := range crds {
		none := &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
		if err := setConversion(ctx, c, name, none); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func setConversion(ctx context.Context, c client.Client, name string, conv *apiextensionsv1.CustomResourceConversion) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return err
		}
		crd.Spec.Conversion = conv.DeepCopy()
		return c.Update(ctx, crd)
	})
	if err != nil {
		return fmt.Errorf("cannot set conversion strategy %q on CRD %q: %w", conv.Strategy, name, err)
	}
	return nil
}
