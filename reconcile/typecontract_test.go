package reconcile_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typeContractCase is a provider type, given to one of capkit's typed constructors, and what the compiler
// must say of it.
type typeContractCase struct {
	name    string
	methods []string // the accessor methods the type has (see accessorSource)
	call    string   // the constructor call, with the type as machineType
	wantErr string   // "" when the program must compile
}

// accessorSource holds one line per accessor method a provider type may have.
var accessorSource = map[string]string{
	"GetConditions":           "func (m *machineType) GetConditions() []metav1.Condition { return m.conds }",
	"SetConditions":           "func (m *machineType) SetConditions(c []metav1.Condition) { m.conds = c }",
	"IsProvisioned":           "func (m *machineType) IsProvisioned() bool { return m.provisioned }",
	"SetProvisioned":          "func (m *machineType) SetProvisioned(v bool) { m.provisioned = v }",
	"GetProviderID":           "func (m *machineType) GetProviderID() string { return m.id }",
	"SetProviderID":           "func (m *machineType) SetProviderID(id string) { m.id = id }",
	"GetControlPlaneEndpoint": "func (m *machineType) GetControlPlaneEndpoint() contract.APIEndpoint { return m.ep }",
	"SetControlPlaneEndpoint": "func (m *machineType) SetControlPlaneEndpoint(ep contract.APIEndpoint) { m.ep = ep }",
	"GetProviderIDList":       "func (m *machineType) GetProviderIDList() []string { return m.ids }",
	"SetProviderIDList":       "func (m *machineType) SetProviderIDList(ids []string) { m.ids = ids }",
	"GetStatusReplicas":       "func (m *machineType) GetStatusReplicas() int32 { return m.n }",
	"SetStatusReplicas":       "func (m *machineType) SetStatusReplicas(n int32) { m.n = n }",
}

// program is a package that declares machineType with the given accessor methods and calls a constructor.
func (tc typeContractCase) program() string {
	var b strings.Builder
	b.WriteString(`package typecheck

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

type machineType struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	conds       []metav1.Condition
	provisioned bool
	id          string
	ep          contract.APIEndpoint
	ids         []string
	n           int32
}

func (m *machineType) DeepCopyObject() runtime.Object { c := *m; return &c }

var (
	_ = context.Background
	_ reconcile.Option
	_ scope.Option
)

`)
	for _, m := range tc.methods {
		b.WriteString(accessorSource[m] + "\n")
	}
	b.WriteString("\nfunc use() { " + tc.call + " }\n")
	return b.String()
}

var (
	machineAccessors = []string{"GetConditions", "SetConditions", "IsProvisioned", "SetProvisioned", "GetProviderID", "SetProviderID"}
	clusterAccessors = []string{"GetConditions", "SetConditions", "IsProvisioned", "SetProvisioned", "GetControlPlaneEndpoint", "SetControlPlaneEndpoint"}
	poolAccessors    = []string{"GetConditions", "SetConditions", "IsProvisioned", "SetProvisioned", "GetProviderIDList", "SetProviderIDList", "GetStatusReplicas", "SetStatusReplicas"}
)

// without returns methods without the named ones.
func without(methods []string, drop ...string) []string {
	var out []string
	for _, m := range methods {
		if !slices.Contains(drop, m) {
			out = append(out, m)
		}
	}
	return out
}

const (
	machineReconcilerCall = `_, _ = reconcile.NewMachineReconcilerFor(nil, &machineType{}, []reconcile.Step[scope.MachineScoper[*machineType]]{})`
	clusterReconcilerCall = `_, _ = reconcile.NewClusterReconcilerFor(nil, &machineType{}, []reconcile.Step[scope.ClusterScoper[*machineType]]{})`
	poolReconcilerCall    = `_, _ = reconcile.NewMachinePoolReconcilerFor(nil, &machineType{}, []reconcile.Step[scope.MachinePoolScoper[*machineType]]{})`
	machineScopeCall      = `_, _ = scope.NewMachineScope(context.Background(), nil, &machineType{}, nil, nil)`
)

// TestTypeContractIsCheckedByTheCompiler builds small provider packages against capkit's typed constructors:
// a type that lacks an accessor its kind requires does not compile, and the compiler names the method and the
// contract; the same type with the accessor compiles.
func TestTypeContractIsCheckedByTheCompiler(t *testing.T) {
	tests := []typeContractCase{
		{name: "machine reconciler, every accessor", methods: machineAccessors, call: machineReconcilerCall},
		{name: "machine reconciler, no provisioned accessor", methods: without(machineAccessors, "IsProvisioned", "SetProvisioned"), call: machineReconcilerCall,
			wantErr: "T (type *machineType) does not satisfy contract.InfraMachineObject (missing method IsProvisioned)"},
		{name: "machine reconciler, no SetProvisioned", methods: without(machineAccessors, "SetProvisioned"), call: machineReconcilerCall,
			wantErr: "T (type *machineType) does not satisfy contract.InfraMachineObject (missing method SetProvisioned)"},
		{name: "machine reconciler, no provider ID", methods: without(machineAccessors, "GetProviderID"), call: machineReconcilerCall,
			wantErr: "T (type *machineType) does not satisfy contract.InfraMachineObject (missing method GetProviderID)"},
		{name: "machine scope, no conditions", methods: without(machineAccessors, "SetConditions"), call: machineScopeCall,
			wantErr: "T (type *machineType) does not satisfy contract.InfraMachineObject (missing method SetConditions)"},
		{name: "cluster reconciler, every accessor", methods: clusterAccessors, call: clusterReconcilerCall},
		{name: "cluster reconciler, no endpoint", methods: without(clusterAccessors, "SetControlPlaneEndpoint"), call: clusterReconcilerCall,
			wantErr: "T (type *machineType) does not satisfy contract.InfraClusterObject (missing method SetControlPlaneEndpoint)"},
		{name: "pool reconciler, every accessor", methods: poolAccessors, call: poolReconcilerCall},
		{name: "pool reconciler, no replicas", methods: without(poolAccessors, "GetStatusReplicas"), call: poolReconcilerCall,
			wantErr: "T (type *machineType) does not satisfy contract.InfraMachinePoolObject (missing method GetStatusReplicas)"},
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	// Every case is a package of its own in a folder that exists only in the overlay, built in one go build.
	overlay := map[string]string{}
	dir := t.TempDir()
	pkgs := make([]string, len(tests))
	for i, tc := range tests {
		src := filepath.Join(dir, fmt.Sprintf("case%d.go", i))
		require.NoError(t, os.WriteFile(src, []byte(tc.program()), 0o600))
		overlay[filepath.Join(root, "reconcile", "internal", "typecheck", fmt.Sprintf("case%d", i), "main.go")] = src
		pkgs[i] = fmt.Sprintf("./reconcile/internal/typecheck/case%d", i)
	}
	overlayJSON, err := json.Marshal(map[string]any{"Replace": overlay})
	require.NoError(t, err)
	overlayFile := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(overlayFile, overlayJSON, 0o600))

	cmd := exec.Command("go", append([]string{"build", "-overlay", overlayFile}, pkgs...)...)
	cmd.Dir = root
	out, _ := cmd.CombinedOutput()
	perPackage := splitBuildOutput(string(out))
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := perPackage[fmt.Sprintf("github.com/capkit/capkit/reconcile/internal/typecheck/case%d", i)]
			if tc.wantErr == "" {
				assert.Empty(t, got, "the program must compile")
				return
			}
			assert.Contains(t, got, tc.wantErr)
		})
	}
	// Each failing case failed for its own reason only, and nothing else went wrong in the build.
	for pkg := range perPackage {
		assert.True(t, strings.HasPrefix(pkg, "github.com/capkit/capkit/reconcile/internal/typecheck/case"), "unexpected build output for %q:\n%s", pkg, out)
	}
}

// splitBuildOutput returns go build's messages by package ("# <import path>" headers).
func splitBuildOutput(out string) map[string]string {
	res := map[string]string{}
	var pkg string
	for line := range strings.SplitSeq(out, "\n") {
		if name, ok := strings.CutPrefix(line, "# "); ok {
			pkg = name
			continue
		}
		if pkg != "" && line != "" {
			res[pkg] += line + "\n"
		}
	}
	return res
}
