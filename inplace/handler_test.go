package inplace_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/inplace"
)

const (
	discoveryPath    = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery"
	canUpdateSetPath = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/canupdatemachineset/memcloud-can-update-machineset"
	canUpdatePath    = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/canupdatemachine/memcloud-can-update-machine"
	updatePath       = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/updatemachine/memcloud-update-machine"
)

func handler(t *testing.T, cfg inplace.Config) http.Handler {
	t.Helper()
	h, err := inplace.NewHandler(cfg)
	require.NoError(t, err)
	return h
}

// call serves one request and returns the status code, the Content-Type and the body.
func call(h http.Handler, method, path, contentType string, body []byte) (int, http.Header, string) {
	r := httptest.NewRequest(method, path, bytes.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Header(), w.Body.String()
}

func TestDiscovery(t *testing.T) {
	cfg := config()
	cfg.FailurePolicy, cfg.TimeoutSeconds = inplace.FailurePolicyIgnore, 20
	code, header, body := call(handler(t, cfg), http.MethodPost, discoveryPath, "", []byte(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoveryRequest"}`))
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "application/json", header.Get("Content-Type"))
	assert.JSONEq(t, `{
		"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "kind": "DiscoveryResponse", "status": "Success",
		"handlers": [
			{"name": "memcloud-can-update-machine", "timeoutSeconds": 20, "failurePolicy": "Ignore",
			 "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": "CanUpdateMachine"}},
			{"name": "memcloud-can-update-machineset", "timeoutSeconds": 20, "failurePolicy": "Ignore",
			 "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": "CanUpdateMachineSet"}},
			{"name": "memcloud-update-machine", "timeoutSeconds": 20, "failurePolicy": "Fail",
			 "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": "UpdateMachine"}}
		]}`, body)

	_, _, body = call(handler(t, config()), http.MethodPost, discoveryPath, "", nil)
	var resp inplace.DiscoveryResponse
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	for _, h := range resp.Handlers {
		assert.Equal(t, int32(10), *h.TimeoutSeconds, "the default timeout is announced")
		assert.Equal(t, inplace.FailurePolicyFail, *h.FailurePolicy, "the default failure policy is announced")
	}
}

func TestHandlerHTTP(t *testing.T) {
	valid, err := json.Marshal(setRequest(obj{"flavor": "m1"}, obj{"flavor": "m2"}))
	require.NoError(t, err)
	tests := []struct {
		name, method, path, contentType string
		body                            []byte
		code                            int
		response                        string // JSON the body must equal, or "" to check message only
		message                         string // part of the message
	}{{
		name: "another path", method: http.MethodPost, path: "/hooks.runtime.cluster.x-k8s.io/v1alpha1/canupdatemachineset/other",
		code: http.StatusNotFound, message: `no in-place update hook at path "/hooks.runtime.cluster.x-k8s.io/v1alpha1/canupdatemachineset/other"`,
	}, {
		name: "a trailing slash", method: http.MethodPost, path: discoveryPath + "/", code: http.StatusNotFound, message: "no in-place update hook",
	}, {
		name: "GET", method: http.MethodGet, path: canUpdateSetPath, code: http.StatusMethodNotAllowed, message: "method GET is not allowed: use POST",
	}, {
		name: "another content type", method: http.MethodPost, path: canUpdateSetPath, contentType: "application/yaml", body: valid,
		code: http.StatusUnsupportedMediaType, message: `content type "application/yaml" is not supported`,
	}, {
		name: "JSON with a charset", method: http.MethodPost, path: canUpdateSetPath, contentType: "application/json; charset=utf-8", body: valid,
		code: http.StatusOK, message: "",
	}, {
		name: "oversize body", method: http.MethodPost, path: canUpdateSetPath, body: bytes.Repeat([]byte(" "), inplace.MaxRequestBytes+1),
		code: http.StatusRequestEntityTooLarge, message: "request body is larger than 10485760 bytes",
	}, {
		name: "bad JSON", method: http.MethodPost, path: canUpdateSetPath, body: []byte(`{"current":`),
		code:     http.StatusOK,
		response: `{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"CanUpdateMachineSetResponse","status":"Failure","message":"cannot decode CanUpdateMachineSetRequest: unexpected end of JSON input"}`,
	}, {
		name: "empty body", method: http.MethodPost, path: updatePath,
		code:     http.StatusOK,
		response: `{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"UpdateMachineResponse","status":"Failure","message":"cannot decode UpdateMachineRequest: unexpected end of JSON input","retryAfterSeconds":0}`,
	}, {
		name: "an object that is not an object", method: http.MethodPost, path: canUpdatePath, body: []byte(`{"current":{"infrastructureMachine":[1]}}`),
		code: http.StatusOK, message: "cannot decode CanUpdateMachineRequest: cannot decode infrastructureMachine: json: cannot unmarshal array",
	}, {
		name: "a request of another hook", method: http.MethodPost, path: canUpdatePath, body: valid,
		code: http.StatusOK, message: "", // decoded as a CanUpdateMachineRequest without objects: declined
	}, {
		name: "another kind", method: http.MethodPost, path: canUpdatePath, body: []byte(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"CanUpdateMachineSetRequest"}`),
		code: http.StatusOK, message: `cannot decode CanUpdateMachineRequest: kind is "CanUpdateMachineSetRequest"`,
	}, {
		name: "another version", method: http.MethodPost, path: canUpdatePath, body: []byte(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha2"}`),
		code: http.StatusOK, message: `apiVersion "hooks.runtime.cluster.x-k8s.io/v1alpha2" is not "hooks.runtime.cluster.x-k8s.io/v1alpha1"`,
	}}
	h := handler(t, config())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, header, body := call(h, tt.method, tt.path, tt.contentType, tt.body)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, "application/json", header.Get("Content-Type"))
			if tt.code == http.StatusMethodNotAllowed {
				assert.Equal(t, http.MethodPost, header.Get("Allow"))
			}
			if tt.response != "" {
				assert.JSONEq(t, tt.response, body)
				return
			}
			var resp struct {
				Status  inplace.ResponseStatus `json:"status"`
				Message string                 `json:"message"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &resp), body)
			if tt.message == "" {
				assert.Equal(t, inplace.ResponseStatusSuccess, resp.Status, body)
				return
			}
			assert.Equal(t, inplace.ResponseStatusFailure, resp.Status)
			assert.Contains(t, resp.Message, tt.message)
		})
	}
}

// A CanUpdateMachineSet call over HTTP as Cluster API makes it: the patch is base64 on the wire.
func TestHandlerCanUpdateMachineSetEndToEnd(t *testing.T) {
	srv := httptest.NewServer(handler(t, config()))
	defer srv.Close()

	req := setRequest(obj{"flavor": "m1", "tags": obj{"a": "1"}}, obj{"flavor": "m2", "tags": obj{"a": "1"}})
	req.APIVersion, req.Kind = inplace.APIVersion, "CanUpdateMachineSetRequest"
	req.Settings = map[string]string{"k": "v"}
	body, err := json.Marshal(req)
	require.NoError(t, err)
	resp, err := srv.Client().Post(srv.URL+canUpdateSetPath+"?timeout=10s", "", bytes.NewReader(body))
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	var raw map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&raw))
	patch := base64.StdEncoding.EncodeToString([]byte(`[{"op":"replace","path":"/spec/template/spec/flavor","value":"m2"}]`))
	assert.Equal(t, map[string]any{
		"apiVersion": inplace.APIVersion,
		"kind":       "CanUpdateMachineSetResponse",
		"status":     "Success",
		"infrastructureMachineTemplatePatch": map[string]any{
			"patchType": "JSONPatch",
			"patch":     patch,
		},
	}, raw)
}

func TestHandlerUpdateMachine(t *testing.T) {
	body, err := json.Marshal(updateRequest())
	require.NoError(t, err)
	cfg := config()
	cfg.Reader = apiServer(liveMachine(), liveInfra("done"))
	code, _, got := call(handler(t, cfg), http.MethodPost, updatePath, "application/json", body)
	require.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"UpdateMachineResponse",
		"status":"Success","message":"flavor is m2","retryAfterSeconds":0}`, got, "retryAfterSeconds 0 is on the wire")
}

// Update gets a context with the handler's timeout.
func TestHandlerUpdateDeadline(t *testing.T) {
	cfg := config()
	cfg.TimeoutSeconds = 7
	var left float64
	cfg.Update = func(ctx context.Context, _ *unstructured.Unstructured) (inplace.Progress, error) {
		d, ok := ctx.Deadline()
		require.True(t, ok)
		left = time.Until(d).Seconds()
		return inplace.Progress{Done: true}, nil
	}
	body, err := json.Marshal(updateRequest())
	require.NoError(t, err)
	code, _, _ := call(handler(t, cfg), http.MethodPost, updatePath, "", body)
	require.Equal(t, http.StatusOK, code)
	assert.InDelta(t, 7, left, 1)
}

type registrar struct{ paths []string }

func (r *registrar) Register(path string, _ http.Handler) { r.paths = append(r.paths, path) }

func TestRegister(t *testing.T) {
	var r registrar
	require.NoError(t, inplace.Register(&r, config()))
	assert.ElementsMatch(t, []string{discoveryPath, canUpdatePath, canUpdateSetPath, updatePath}, r.paths)

	cfg := config()
	cfg.Name = "Bad"
	var none registrar
	err := inplace.Register(&none, cfg)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), `cannot create the in-place update extension: invalid Config.Name "Bad"`), err.Error())
	assert.Empty(t, none.paths)
}
