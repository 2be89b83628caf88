package providertest

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

// ErrNoCRDs is returned by ReadCRDFiles when the paths hold no CustomResourceDefinition.
var ErrNoCRDs = errors.New("no CustomResourceDefinition found")

// ReadCRDFiles reads every CustomResourceDefinition in the YAML files and folders at paths (a folder is read
// recursively, *.yaml and *.yml only; files may hold several documents and other kinds, which are left
// out). It fails with ErrNoCRDs when there is none, so that a wrong path cannot pass a conformance test.
func ReadCRDFiles(paths ...string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read CRDs in %q: %w", p, err)
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("cannot read CRDs in %q: %w", p, err)
		}
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		y, err := clusterctl.ReadYAMLFile(f)
		if err != nil {
			return nil, fmt.Errorf("cannot read CRDs: %w", err)
		}
		for _, d := range y.Documents {
			if d.Object.GetKind() != "CustomResourceDefinition" {
				continue
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(d.Object.Object, crd, true); err != nil {
				return nil, fmt.Errorf("cannot decode CustomResourceDefinition at %s: %w", d.Position(), err)
			}
			out = append(out, crd)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cannot check CRDs in %q: %w", paths, ErrNoCRDs)
	}
	return out, nil
}

// checkCRDFiles reads the CRDs at paths (see ReadCRDFiles) and checks each with lint.CheckCRD. The
// violations are sorted; the error is about reading only.
func checkCRDFiles(paths ...string) (lint.Violations, error) {
	crds, err := ReadCRDFiles(paths...)
	if err != nil {
		return nil, err
	}
	var out lint.Violations
	for _, crd := range crds {
		out = append(out, lint.CheckCRD(crd)...)
	}
	return out.Sorted(), nil
}

// AssertCRDConformance checks every CRD in the files and folders at paths (e.g. "../config/crd/bases")
// against the Cluster API contract: scope, listKind, status subresource, contract labels naming served
// versions, and the contract fields in the schema of every labelled version. Each violation is one line of
// the test output. It returns whether the CRDs conform.
func AssertCRDConformance(t TestingT, paths ...string) bool {
	t.Helper()
	vs, err := checkCRDFiles(paths...)
	if err != nil {
		t.Errorf("%v", err)
		return false
	}
	return reportViolations(t, "CRDs in "+strings.Join(paths, ", "), vs)
}

// checkObject checks the live object obj (typed or unstructured) of contract role kind against contract
// version v with the matching checker of package contract/lint. Only the roles with live objects have one:
// lint.KindInfraCluster, lint.KindInfraMachine, lint.KindInfraMachinePool and lint.KindBootstrapConfig.
func checkObject(obj runtime.Object, kind lint.Kind, v contract.Version, opts ...lint.CheckOption) (lint.Violations, error) {
	u, err := ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	switch kind {
	case lint.KindInfraCluster:
		return lint.CheckInfraCluster(u, v, opts...), nil
	case lint.KindInfraMachine:
		return lint.CheckInfraMachine(u, v), nil
	case lint.KindInfraMachinePool:
		return lint.CheckInfraMachinePool(u, v), nil
	case lint.KindBootstrapConfig:
		return lint.CheckBootstrapConfig(u, v), nil
	}
	return nil, fmt.Errorf("cannot check object %s: role %q has no live-object checker, use one of %q", describe(u), kind,
		[]lint.Kind{lint.KindInfraCluster, lint.KindInfraMachine, lint.KindInfraMachinePool, lint.KindBootstrapConfig})
}

// AssertObjectConformance checks a reconciled object (typed or unstructured) of contract role kind against
// contract version v: shapes of every contract field, endpoint or providerID set once provisioned, valid
// addresses and conditions. Each violation is one line of the test output. It returns whether it conforms.
func AssertObjectConformance(t TestingT, obj runtime.Object, kind lint.Kind, v contract.Version, opts ...lint.CheckOption) bool {
	t.Helper()
	vs, err := checkObject(obj, kind, v, opts...)
	if err != nil {
		t.Errorf("%v", err)
		return false
	}
	u, _ := ToUnstructured(obj)
	return reportViolations(t, describe(u), vs)
}

// AssertTypeConformance checks the Go API type of obj (e.g. &MemCluster{}) in contract role kind against
// contract version v with lint.CheckType, before any CRD is generated. It returns whether it conforms.
func AssertTypeConformance(t TestingT, obj any, kind lint.Kind, v contract.Version) bool {
	t.Helper()
	return reportViolations(t, fmt.Sprintf("type %T", obj), lint.CheckType(obj, kind, v))
}

// AssertTypesConformance checks the Go API type of each object of types (its contract role → e.g.
// &MemCluster{}) with AssertTypeConformance, in the order of the roles' names. It returns whether all conform.
func AssertTypesConformance(t TestingT, v contract.Version, types map[lint.Kind]any) bool {
	t.Helper()
	ok := true
	for _, kind := range slices.Sorted(maps.Keys(types)) {
		ok = AssertTypeConformance(t, types[kind], kind, v) && ok
	}
	return ok
}

// AssertBootstrapSecretConformance checks a bootstrap data Secret with lint.CheckBootstrapSecret; config
// is the bootstrap config that owns it, or nil. Violations never show the Secret's data.
func AssertBootstrapSecretConformance(t TestingT, secret *corev1.Secret, config runtime.Object) bool {
	t.Helper()
	if config == nil {
		return reportViolations(t, "bootstrap Secret", lint.CheckBootstrapSecret(secret, nil))
	}
	cu, err := ToUnstructured(config)
	if err != nil {
		t.Errorf("%v", err)
		return false
	}
	return reportViolations(t, "bootstrap Secret", lint.CheckBootstrapSecret(secret, cu))
}

func reportViolations(t TestingT, subject string, vs lint.Violations) bool {
	t.Helper()
	if len(vs) == 0 {
		return true
	}
	lines := slices.Clone(vs.Sorted().Strings())
	for i := range lines {
		lines[i] = "  - " + lines[i]
	}
	noun := "violations"
	if len(vs) == 1 {
		noun = "violation"
	}
	t.Errorf("%s: %d contract %s:\n%s", subject, len(vs), noun, strings.Join(lines, "\n"))
	return false
}
