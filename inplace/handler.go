package inplace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// MaxRequestBytes bounds the body of a request: six objects at etcd's limit of 1.5 MiB fit (Cluster API
// sends a MachineSet, an InfraMachine template and a bootstrap template, current and desired, metadata and
// spec only). A larger body is answered 413.
const MaxRequestBytes = 10 << 20

// Registrar is a server that routes one path to a handler, such as controller-runtime's webhook.Server.
type Registrar interface {
	Register(path string, h http.Handler)
}

// Register validates cfg and registers discovery and the three hooks on srv, each at its own path. With the
// manager's webhook.Server the extension shares the webhook certificate: the ExtensionConfig points at the
// webhook Service and takes its CA bundle. A server holds one extension (the discovery path is fixed), and
// controller-runtime's webhook.Server panics when a path is registered twice.
func Register(srv Registrar, cfg Config) error {
	h, err := newServer(cfg)
	if err != nil {
		return err
	}
	for _, p := range h.paths {
		srv.Register(p, h)
	}
	return nil
}

// NewHandler validates cfg and returns the handler of discovery and the three hooks, served at Cluster API's
// paths (/hooks.runtime.cluster.x-k8s.io/v1alpha1/<hook>[/<handler name>]) for a server of its own. It
// answers:
//
//   - 200 with the hook's response for every request it could read, also when the body is not a request of
//     the hook: then with status Failure and a message naming what failed, as Cluster API's own extension
//     server does. Cluster API reports a Failure and retries whatever the failure policy (a malformed
//     request is a version skew to fix, not an outage to ignore).
//   - 404 for another path, 405 for another method than POST, 415 for a Content-Type other than JSON
//     (Cluster API sends none), 413 for a body over MaxRequestBytes, each with a JSON body
//     {"status":"Failure","message":…}; 400 when the body cannot be read. Cluster API counts these as
//     transport errors, subject to the handler's failure policy.
//
// Each call gets a context with the handler's timeout. Request bodies are never logged; decisions are
// logged with the logger of the request's context, or controller-runtime's global logger.
func NewHandler(cfg Config) (http.Handler, error) {
	return newServer(cfg)
}

type server struct {
	cfg       Config
	paths     []string
	routes    map[string]func(ctx context.Context, body []byte) any
	discovery DiscoveryResponse
}

func newServer(cfg Config) (*server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("cannot create the in-place update extension: %w", err)
	}
	s := &server{cfg: cfg, routes: map[string]func(context.Context, []byte) any{}}
	timeout := int32(cfg.timeout().Seconds())
	s.discovery = DiscoveryResponse{Status: ResponseStatusSuccess}
	s.discovery.APIVersion, s.discovery.Kind = APIVersion, "DiscoveryResponse"
	for _, h := range cfg.handlers() {
		fp := h.failurePolicy
		s.discovery.Handlers = append(s.discovery.Handlers, ExtensionHandler{
			Name:           h.name,
			RequestHook:    GroupVersionHook{APIVersion: APIVersion, Hook: h.hook},
			TimeoutSeconds: &timeout,
			FailurePolicy:  &fp,
		})
		var route func(context.Context, []byte) any
		switch h.hook {
		case hookCanUpdateMachineSet:
			route = s.canUpdateMachineSet
		case hookCanUpdateMachine:
			route = s.canUpdateMachine
		case hookUpdateMachine:
			route = s.updateMachine
		}
		s.add(hookPath(h.hook, h.name), route)
	}
	s.add(hookPath(hookDiscovery, ""), func(context.Context, []byte) any { return s.discovery })
	return s, nil
}

func (s *server) add(path string, route func(context.Context, []byte) any) {
	s.paths = append(s.paths, path)
	s.routes[path] = route
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route, ok := s.routes[r.URL.Path]
	if !ok {
		writeJSON(w, http.StatusNotFound, transportError(fmt.Sprintf("no in-place update hook at path %q", r.URL.Path)))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, transportError(fmt.Sprintf("method %s is not allowed: use POST", r.Method)))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeJSON(w, http.StatusUnsupportedMediaType, transportError(fmt.Sprintf("content type %q is not supported: send application/json", ct)))
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeJSON(w, http.StatusRequestEntityTooLarge, transportError(fmt.Sprintf("request body is larger than %d bytes", MaxRequestBytes)))
			return
		}
		writeJSON(w, http.StatusBadRequest, transportError(fmt.Sprintf("cannot read the request body: %v", err)))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.timeout())
	defer cancel()
	writeJSON(w, http.StatusOK, route(ctx, body))
}

func (s *server) canUpdateMachineSet(ctx context.Context, body []byte) any {
	req := &CanUpdateMachineSetRequest{}
	if err := decode(body, req, &req.TypeMeta, "CanUpdateMachineSetRequest"); err != nil {
		resp := &CanUpdateMachineSetResponse{Status: ResponseStatusFailure, Message: err.Error()}
		resp.APIVersion, resp.Kind = APIVersion, "CanUpdateMachineSetResponse"
		return resp
	}
	resp := s.cfg.CanUpdateMachineSet(ctx, req)
	s.logCanUpdate(ctx, hookCanUpdateMachineSet, req.Desired.MachineSet, resp.Status, resp.Message, resp.InfrastructureMachineTemplatePatch.IsDefined())
	return resp
}

func (s *server) canUpdateMachine(ctx context.Context, body []byte) any {
	req := &CanUpdateMachineRequest{}
	if err := decode(body, req, &req.TypeMeta, "CanUpdateMachineRequest"); err != nil {
		resp := &CanUpdateMachineResponse{Status: ResponseStatusFailure, Message: err.Error()}
		resp.APIVersion, resp.Kind = APIVersion, "CanUpdateMachineResponse"
		return resp
	}
	resp := s.cfg.CanUpdateMachine(ctx, req)
	s.logCanUpdate(ctx, hookCanUpdateMachine, req.Desired.Machine, resp.Status, resp.Message, resp.InfrastructureMachinePatch.IsDefined())
	return resp
}

func (s *server) updateMachine(ctx context.Context, body []byte) any {
	req := &UpdateMachineRequest{}
	if err := decode(body, req, &req.TypeMeta, "UpdateMachineRequest"); err != nil {
		resp := &UpdateMachineResponse{Status: ResponseStatusFailure, Message: err.Error()}
		resp.APIVersion, resp.Kind = APIVersion, "UpdateMachineResponse"
		return resp
	}
	resp := s.cfg.UpdateMachine(ctx, req)
	l := logger(ctx, hookUpdateMachine, req.Desired.Machine)
	switch {
	case resp.Status != ResponseStatusSuccess:
		l.Info("In-place update failed", "message", resp.Message)
	case resp.RetryAfterSeconds == 0:
		l.Info("In-place update done", "message", resp.Message)
	default:
		l.V(1).Info("In-place update in progress", "message", resp.Message, "retryAfterSeconds", resp.RetryAfterSeconds)
	}
	return resp
}

func (s *server) logCanUpdate(ctx context.Context, hook string, obj *unstructured.Unstructured, status ResponseStatus, message string, patched bool) {
	l := logger(ctx, hook, obj)
	switch {
	case status != ResponseStatusSuccess:
		l.Info("Cannot answer whether the changes can be made in place", "message", message)
	case patched:
		l.Info("Changes can be made in place")
	case message != "":
		l.Info("Changes cannot be made in place", "reason", message)
	}
}

// logger names the hook and the Machine or MachineSet, never more of the request.
func logger(ctx context.Context, hook string, obj *unstructured.Unstructured) logr.Logger {
	l := log.FromContext(ctx).WithName("inplace").WithValues("hook", hook)
	if obj != nil {
		l = l.WithValues("namespace", obj.GetNamespace(), "name", obj.GetName())
	}
	return l
}

// decode reads a request of kind; its apiVersion and kind may be empty, not another.
func decode(body []byte, req any, tm *metav1.TypeMeta, kind string) error {
	if err := json.Unmarshal(body, req); err != nil {
		return fmt.Errorf("cannot decode %s: %w", kind, err)
	}
	if tm.APIVersion != "" && tm.APIVersion != APIVersion {
		return fmt.Errorf("cannot decode %s: apiVersion %q is not %q", kind, tm.APIVersion, APIVersion)
	}
	if tm.Kind != "" && tm.Kind != kind {
		return fmt.Errorf("cannot decode %s: kind is %q", kind, tm.Kind)
	}
	return nil
}

type transportErrorResponse struct {
	Status  ResponseStatus `json:"status"`
	Message string         `json:"message"`
}

func transportError(msg string) transportErrorResponse {
	return transportErrorResponse{Status: ResponseStatusFailure, Message: msg}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, fmt.Sprintf("cannot encode the response: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
