package inplace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/inplace"
)

// deepChanges is a chain of depth maps, each with width leaves, whose every leaf differs between the two
// sides: the request of the security review whose cost was changes × depth (430 KB: 495 MiB to decline it).
func deepChanges(depth, width int) (cur, des obj) {
	cur, des = obj{}, obj{}
	c, d := cur, des
	for range depth {
		for j := range width {
			k := "k" + strconv.Itoa(j)
			c[k], d[k] = int64(0), int64(1)
		}
		nc, nd := obj{}, obj{}
		c["n"], d["n"] = nc, nd
		c, d = nc, nd
	}
	return cur, des
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCanUpdateCostIsLinear: a request whose changes are many and deep is declined, or patched, with memory in
// proportion to its size (before: changes × depth, 495 MiB to decline 430 KB, a 55 MB patch and 1.4 GiB under a
// Mutable field).
func TestCanUpdateCostIsLinear(t *testing.T) {
	cur, des := deepChanges(1000, 20)
	tests := []struct {
		name     string
		cur, des obj
		declined string // part of the message, "" when patched
	}{
		{"declined under a field that is not mutable", obj{"flavor": "m1", "extra": cur}, obj{"flavor": "m2", "extra": des},
			`MemMachineTemplate spec.template.spec.extra.k0 cannot be updated in place`},
		{"patched under a mutable field", obj{"tags": cur}, obj{"tags": des}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := setRequest(tt.cur, tt.des)
			body, err := json.Marshal(req)
			require.NoError(t, err)
			var resp *inplace.CanUpdateMachineSetResponse
			cfg := config()
			alloc := allocated(func() { resp = cfg.CanUpdateMachineSet(context.Background(), req) })
			t.Logf("request %d bytes, allocated %d bytes, patch %d bytes", len(body), alloc, len(resp.InfrastructureMachineTemplatePatch.Patch))
			require.Equal(t, inplace.ResponseStatusSuccess, resp.Status)
			assert.Less(t, alloc, uint64(16*len(body)), "allocations in proportion to the request (json.Marshal of the patch takes most)")
			if tt.declined != "" {
				assert.Contains(t, resp.Message, tt.declined)
				assert.False(t, resp.InfrastructureMachineTemplatePatch.IsDefined())
				return
			}
			require.True(t, resp.InfrastructureMachineTemplatePatch.IsDefined())
			assert.Less(t, len(resp.InfrastructureMachineTemplatePatch.Patch), len(body), "the patch is no larger than the request")
			got := applyPatch(t, req.Current.InfrastructureMachineTemplate, resp.InfrastructureMachineTemplatePatch, "spec", "template", "spec")
			assert.Equal(t, req.Desired.InfrastructureMachineTemplate.Object["spec"].(obj)["template"].(obj)["spec"], got)
		})
	}
}

// TestDeclineNamesADeepFieldBriefly: the message of a change 1,000 fields deep names its first fields only.
func TestDeclineNamesADeepFieldBriefly(t *testing.T) {
	cur, des := deepChanges(1000, 0)
	des = obj{"n": des}
	resp := config().CanUpdateMachineSet(t.Context(), setRequest(obj{"extra": cur}, obj{"extra": des}))
	assert.Contains(t, resp.Message, "MemMachineTemplate spec.template.spec.extra.n.n.n")
	assert.Contains(t, resp.Message, "… cannot be updated in place")
	assert.Less(t, len(resp.Message), 400)
}

// BenchmarkCanUpdateDeepChanges measures the request of TestCanUpdateCostIsLinear through the HTTP handler,
// declined and patched.
func BenchmarkCanUpdateDeepChanges(b *testing.B) {
	cur, des := deepChanges(1000, 20)
	h, err := inplace.NewHandler(config())
	require.NoError(b, err)
	for _, bc := range []struct {
		name     string
		cur, des obj
	}{
		{"declined", obj{"extra": cur}, obj{"extra": des}},
		{"patched", obj{"tags": cur}, obj{"tags": des}},
	} {
		body, err := json.Marshal(setRequest(bc.cur, bc.des))
		require.NoError(b, err)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				code, _, _ := call(h, http.MethodPost, canUpdateSetPath, "", bytes.Clone(body))
				if code != http.StatusOK {
					b.Fatal(code)
				}
			}
		})
	}
}
