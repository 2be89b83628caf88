package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunGenerate(t *testing.T) {
	machine, named := t.TempDir(), t.TempDir()
	types := []byte(`package api

type FooMachineSpec struct {
	ProviderID string ` + "`json:\"providerID\"`" + `
}

// FooMachine is an InfraMachine.
// +kubebuilder:object:root=true
type FooMachine struct {
	Spec FooMachineSpec ` + "`json:\"spec\"`" + `
}
`)
	require.NoError(t, os.WriteFile(filepath.Join(machine, "types.go"), types, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(named, "types.go"), types, 0o600))
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "types.go"), []byte(`package api

type FooMachineSpec struct {
	ProviderID int `+"`json:\"providerID\"`"+`
}

// +kubebuilder:object:root=true
type FooMachine struct {
	Spec FooMachineSpec `+"`json:\"spec\"`"+`
}
`), 0o600))
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // substring of standard error ("" means empty)
		wrote  string // file that must exist afterwards
	}{
		{"default output", []string{"generate", "accessors", machine}, 0, "", filepath.Join(machine, "zz_generated.accessors.go")},
		{"named output", []string{"generate", "accessors", "--output", "accessors_gen.go", named}, 0, "", filepath.Join(named, "accessors_gen.go")},
		{"wrong field type", []string{"generate", "accessors", bad}, 1, "capkit generate accessors: cannot generate accessors for FooMachine: spec.providerID (types.go:4) has type int, want string", ""},
		{"no folder", []string{"generate", "accessors"}, 2, "want at least one DIR", ""},
		{"no generator", []string{"generate"}, 2, "usage: capkit generate accessors", ""},
		{"unknown generator", []string{"generate", "deepcopy"}, 2, `unknown generator "deepcopy"`, ""},
		{"help", []string{"generate", "-h"}, 0, "usage: capkit generate accessors", ""},
		{"bad flag", []string{"generate", "accessors", "--nope", machine}, 2, "flag provided but not defined: -nope", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			assert.Equal(t, tt.code, code, stderr.String())
			assert.Empty(t, stdout.String())
			if tt.stderr == "" {
				assert.Empty(t, stderr.String())
			} else {
				assert.Contains(t, stderr.String(), tt.stderr)
			}
			if tt.wrote != "" {
				assert.FileExists(t, tt.wrote)
			}
		})
	}
}
