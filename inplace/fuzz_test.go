package inplace_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/inplace"
)

// FuzzHandler sends arbitrary bodies to each path: the handler never panics, always answers 200 with a JSON
// response of the hook, and a patch it returns turns the current template into the desired one.
func FuzzHandler(f *testing.F) {
	for _, r := range []*inplace.CanUpdateMachineSetRequest{
		setRequest(obj{"flavor": "m1", "tags": obj{"a": "1", "b/c": "2"}}, obj{"flavor": "m2", "tags": obj{"a": "3", "d~": nil}}),
		setRequest(obj{"flavor": "m1", "image": "i1"}, obj{"flavor": "m2", "image": "i2"}),
		setRequest(obj{"tags": []any{"a"}}, obj{"tags": obj{"a": []any{int64(1), 2.5, true}}}),
	} {
		b, err := json.Marshal(r)
		require.NoError(f, err)
		f.Add(uint8(1), b)
	}
	// Many deep changes, under a Mutable field and not (the security review's costly requests, smaller).
	cur, des := deepChanges(200, 5)
	for _, r := range []*inplace.CanUpdateMachineSetRequest{setRequest(obj{"tags": cur}, obj{"tags": des}), setRequest(obj{"x": cur}, obj{"x": des})} {
		b, err := json.Marshal(r)
		require.NoError(f, err)
		f.Add(uint8(1), b)
	}
	for _, p := range []string{"done", "slow", "error", "panic", ""} {
		f.Add(uint8(3), []byte(`{"desired":{"infrastructureMachine":{"apiVersion":"`+group+`/v1beta2","kind":"MemMachine","metadata":{"annotations":{"progress":"`+p+`"}}}}}`))
	}
	f.Add(uint8(2), []byte(`{"current":{"machine":{"spec":{"version":"v1"}},"infrastructureMachine":{"apiVersion":"`+group+`/v1beta2","kind":"MemMachine","spec":{"flavor":1}}},"desired":{"infrastructureMachine":{"apiVersion":"`+group+`/v1beta2","kind":"MemMachine","spec":{"flavor":1.5}}}}`))
	f.Add(uint8(0), []byte(`{}`))
	f.Add(uint8(1), []byte(`{"current":{"machineSet":null,"infrastructureMachineTemplate":{"spec":"x"}}}`))
	f.Add(uint8(1), []byte(`[`))

	paths := []string{discoveryPath, canUpdateSetPath, canUpdatePath, updatePath}
	h, err := inplace.NewHandler(config())
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, hook uint8, body []byte) {
		path := paths[int(hook)%len(paths)]
		code, header, got := call(h, http.MethodPost, path, "", body)
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, "application/json", header.Get("Content-Type"))

		var raw map[string]any
		require.NoError(t, json.Unmarshal([]byte(got), &raw), got)
		require.Contains(t, []any{"Success", "Failure"}, raw["status"], got)
		if path == updatePath {
			require.Contains(t, raw, "retryAfterSeconds", got)
		}
		if path != canUpdateSetPath || raw["status"] != "Success" {
			return
		}
		var resp inplace.CanUpdateMachineSetResponse
		require.NoError(t, json.Unmarshal([]byte(got), &resp))
		if !resp.InfrastructureMachineTemplatePatch.IsDefined() {
			return
		}
		var req inplace.CanUpdateMachineSetRequest
		require.NoError(t, json.Unmarshal(body, &req))
		patched := applyPatch(t, req.Current.InfrastructureMachineTemplate, resp.InfrastructureMachineTemplatePatch, "spec", "template", "spec")
		want := req.Desired.InfrastructureMachineTemplate.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"]
		assert.Equal(t, want, patched)
	})
}
