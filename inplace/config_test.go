package inplace_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/capkit/capkit/inplace"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*inplace.Config)
		err    string // "" for valid
	}{
		{name: "valid", change: func(*inplace.Config) {}},
		{name: "longest name", change: func(c *inplace.Config) { c.Name = strings.Repeat("a", 41) }},
		{name: "ignore policy, 30 s", change: func(c *inplace.Config) { c.FailurePolicy, c.TimeoutSeconds = inplace.FailurePolicyIgnore, 30 }},
		{name: "empty name", change: func(c *inplace.Config) { c.Name = "" }, err: `invalid Config.Name ""`},
		{name: "name not a label", change: func(c *inplace.Config) { c.Name = "Mem_Cloud" }, err: `invalid Config.Name "Mem_Cloud"`},
		{name: "name too long for the handler names", change: func(c *inplace.Config) { c.Name = strings.Repeat("a", 42) },
			err: `handler name "` + strings.Repeat("a", 42) + `-can-update-machineset"`},
		{name: "no kind", change: func(c *inplace.Config) { c.InfraMachine.Kind = "" }, err: `invalid Config.InfraMachine: group "infrastructure.memcloud.capkit.io" and kind "" must both be set`},
		{name: "no group", change: func(c *inplace.Config) { c.InfraMachine = schema.GroupKind{Kind: "MemMachine"} }, err: `invalid Config.InfraMachine: group "" and kind "MemMachine"`},
		{name: "no mutable field", change: func(c *inplace.Config) { c.Mutable = nil }, err: "invalid Config.Mutable: empty"},
		{name: "empty mutable path", change: func(c *inplace.Config) { c.Mutable = [][]string{{"flavor"}, {}} }, err: "invalid Config.Mutable[1]: empty path"},
		{name: "empty path element", change: func(c *inplace.Config) { c.Mutable = [][]string{{"network", ""}} }, err: `invalid Config.Mutable[0]: element 1 of ["network" ""] is empty`},
		{name: "no update", change: func(c *inplace.Config) { c.Update = nil }, err: "invalid Config.Update: nil"},
		{name: "timeout too long", change: func(c *inplace.Config) { c.TimeoutSeconds = 31 }, err: "invalid Config.TimeoutSeconds 31: not between 0 and 30"},
		{name: "negative timeout", change: func(c *inplace.Config) { c.TimeoutSeconds = -1 }, err: "invalid Config.TimeoutSeconds -1"},
		{name: "failure policy", change: func(c *inplace.Config) { c.FailurePolicy = "ignore" }, err: `invalid Config.FailurePolicy "ignore": neither "Fail" nor "Ignore"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config()
			tt.change(&cfg)
			err := cfg.Validate()
			_, herr := inplace.NewHandler(cfg)
			if tt.err == "" {
				require.NoError(t, err)
				require.NoError(t, herr)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
			require.Error(t, herr)
			assert.Equal(t, "cannot create the in-place update extension: "+err.Error(), herr.Error())
		})
	}
}
