package contract

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ErrNoContractLabel is returned when a CRD has no cluster.x-k8s.io/<contract> label, so Cluster API cannot
// tell which API version of the provider's type implements which contract.
var ErrNoContractLabel = errors.New("no contract label")

// ErrCRDNotFound is returned by DiscoverContractVersion when no CRD defines the group and kind.
var ErrCRDNotFound = errors.New("custom resource definition not found")

// crdGVK is the GroupVersionKind of CustomResourceDefinition, used to read CRDs without a registered scheme.
var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// contractKeyPattern matches the version part of a contract label key, e.g. "v1beta2" or "v1alpha4".
var contractKeyPattern = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)

// VersionLabel returns the CRD label key that declares contract v, e.g. "cluster.x-k8s.io/v1beta2".
func VersionLabel(v Version) string { return VersionLabelPrefix + string(v) }

// VersionOf returns the newest contract version a CRD declares in its cluster.x-k8s.io/<contract>
// labels and the newest of its API versions that implement it. Every API version a contract label names must be
// served by the CRD. See VersionFromLabels.
func VersionOf(crd *apiextensionsv1.CustomResourceDefinition) (Version, string, error) {
	if crd == nil {
		return "", "", errors.New("cannot read the contract version: nil CustomResourceDefinition")
	}
	v, apiVersion, err := VersionFromLabels(crd.Labels, servedVersions(crd))
	if err != nil {
		return "", "", fmt.Errorf("cannot read the contract version of CustomResourceDefinition %q: %w", crd.Name, err)
	}
	return v, apiVersion, nil
}

// servedVersions returns the names of the API versions a CRD serves, in the CRD's order.
func servedVersions(crd *apiextensionsv1.CustomResourceDefinition) []string {
	if crd == nil {
		return nil
	}
	var out []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			out = append(out, v.Name)
		}
	}
	return out
}

// VersionFromLabels reads contract labels of the form cluster.x-k8s.io/<contract>: <v1>_<v2>_… (e.g.
// "cluster.x-k8s.io/v1beta2": "v1beta2" or "cluster.x-k8s.io/v1beta1": "v1alpha4_v1beta1"). It returns the
// newest contract capkit supports (v1beta2 before v1beta1) and the newest API version the label names, in
// Kubernetes version order (v1 > v1beta2 > v1beta1 > v1alpha1).
//
// Every contract label is checked, also those of older contracts: each API version it names must be in served,
// else the error names the label and the version. It returns ErrNoContractLabel when there is no contract label
// and ErrUnknownVersion when the labels only declare contracts capkit does not support (e.g. v1alpha4).
func VersionFromLabels(labels map[string]string, served []string) (Version, string, error) {
	keys := VersionLabelKeys(labels)
	if len(keys) == 0 {
		return "", "", fmt.Errorf("cannot find a %q label: %w", VersionLabelPrefix+"<contract>", ErrNoContractLabel)
	}
	newest := map[string]string{}
	for _, key := range keys {
		apiVersion, err := newestAPIVersion(key, labels[key], served)
		if err != nil {
			return "", "", err
		}
		newest[key] = apiVersion
	}
	for _, v := range Versions {
		if apiVersion, ok := newest[VersionLabel(v)]; ok {
			return v, apiVersion, nil
		}
	}
	return "", "", fmt.Errorf("cannot use contract label %q: supported contracts are %q: %w", keys[0], Versions, ErrUnknownVersion)
}

// VersionLabelKeys returns the keys of labels that declare a contract ("cluster.x-k8s.io/<contract>", with
// <contract> a version name such as v1beta2, supported or not), sorted newest contract first.
func VersionLabelKeys(labels map[string]string) []string {
	var keys []string
	for k := range labels {
		if rest, ok := strings.CutPrefix(k, VersionLabelPrefix); ok && contractKeyPattern.MatchString(rest) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		return version.CompareKubeAwareVersionStrings(strings.TrimPrefix(b, VersionLabelPrefix), strings.TrimPrefix(a, VersionLabelPrefix))
	})
	return keys
}

// newestAPIVersion checks one contract label value and returns the newest API version it names.
func newestAPIVersion(key, value string, served []string) (string, error) {
	if value == "" {
		return "", fmt.Errorf("cannot use contract label %q: value is empty, want API versions joined by %q", key, "_")
	}
	var newest string
	for _, apiVersion := range strings.Split(value, "_") {
		if apiVersion == "" {
			return "", fmt.Errorf("cannot use contract label %q: value %q has an empty API version", key, value)
		}
		if !slices.Contains(served, apiVersion) {
			return "", fmt.Errorf("cannot use contract label %q: API version %q is not served by the CRD (served: %q)", key, apiVersion, served)
		}
		if newest == "" || version.CompareKubeAwareVersionStrings(apiVersion, newest) > 0 {
			newest = apiVersion
		}
	}
	return newest, nil
}

// DiscoverContractVersion finds the CRD of gk through c and returns its contract version and the API version
// that implements it, as VersionOf does. It first gets the CRD by its conventional name
// "<plural>.<group>", with the plural made from the lower-case kind by the simple English rules of pluralize;
// when that CRD does not exist or defines another kind it lists all CRDs and matches spec.group and
// spec.names.kind, so irregular plurals are found too. CRDs are read as unstructured objects, so c needs no
// scheme for apiextensions.k8s.io. It returns ErrCRDNotFound when no CRD defines gk.
//
// With a manager's cached client the first call starts an informer on all CRDs (RBAC: get, list and watch
// customresourcedefinitions); to read once without a cache pass mgr.GetAPIReader().
func DiscoverContractVersion(ctx context.Context, c client.Reader, gk schema.GroupKind) (Version, string, error) {
	crd, err := findCRD(ctx, c, gk)
	if err != nil {
		return "", "", err
	}
	return VersionOf(crd)
}

func findCRD(ctx context.Context, c client.Reader, gk schema.GroupKind) (*apiextensionsv1.CustomResourceDefinition, error) {
	if c == nil {
		return nil, fmt.Errorf("cannot find the CRD of %q: nil client", gk)
	}
	if gk.Kind == "" || gk.Group == "" {
		return nil, fmt.Errorf("cannot find the CRD of %q: group and kind must not be empty", gk)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(crdGVK)
	name := crdName(gk)
	err := c.Get(ctx, client.ObjectKey{Name: name}, u)
	switch {
	case err == nil:
		crd, err := toCRD(u)
		if err != nil {
			return nil, err
		}
		if crd.Spec.Group == gk.Group && crd.Spec.Names.Kind == gk.Kind {
			return crd, nil
		}
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("cannot get CustomResourceDefinition %q: %w", name, err)
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(crdGVK.GroupVersion().WithKind("CustomResourceDefinitionList"))
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("cannot list CustomResourceDefinitions to find %q: %w", gk, err)
	}
	for i := range list.Items {
		group, _, _ := unstructured.NestedString(list.Items[i].Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(list.Items[i].Object, "spec", "names", "kind")
		if group == gk.Group && kind == gk.Kind {
			return toCRD(&list.Items[i])
		}
	}
	return nil, fmt.Errorf("cannot find the CRD of %q: %w", gk, ErrCRDNotFound)
}

func toCRD(u *unstructured.Unstructured) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return nil, fmt.Errorf("cannot decode CustomResourceDefinition %q: %w", u.GetName(), err)
	}
	return crd, nil
}

// crdName returns the conventional name of the CRD of gk: "<plural>.<group>", e.g. "memclusters.infrastructure.example.com".
func crdName(gk schema.GroupKind) string { return pluralize(strings.ToLower(gk.Kind)) + "." + gk.Group }

// pluralize returns the plural of a lower-case kind with the regular English rules that CRD plurals follow in
// practice: "…s", "…x", "…z", "…ch" and "…sh" take "es" (memclusters is "memcluster"+"s", "…box" → "…boxes"),
// a consonant followed by "y" becomes "ies" ("…policy" → "…policies"), and everything else takes "s".
// Irregular plurals are not handled; DiscoverContractVersion falls back to matching the kind.
func pluralize(kind string) string {
	switch {
	case kind == "":
		return ""
	case strings.HasSuffix(kind, "s"), strings.HasSuffix(kind, "x"), strings.HasSuffix(kind, "z"),
		strings.HasSuffix(kind, "ch"), strings.HasSuffix(kind, "sh"):
		return kind + "es"
	case strings.HasSuffix(kind, "y") && len(kind) > 1 && !strings.ContainsRune("aeiou", rune(kind[len(kind)-2])):
		return kind[:len(kind)-1] + "ies"
	}
	return kind + "s"
}
