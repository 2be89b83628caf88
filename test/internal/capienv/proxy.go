package capienv

import (
	"encoding/pem"
	"fmt"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// Proxy is another address of an API server whose requests are counted: what one client (a provider's manager)
// asks of the API server, measured the same way whatever client library it uses. It forwards each request as the
// administrator of cfg, and its clients need no credentials.
type Proxy struct {
	// Config reaches the API server through the proxy, trusting the proxy's certificate; write it into a
	// kubeconfig with Kubeconfig.
	Config *rest.Config
	// Requests counts what went through.
	Requests *APIRequests

	server *httptest.Server
}

// StartProxy starts a counting proxy in front of the API server of cfg; Close stops it.
func StartProxy(cfg *rest.Config) (*Proxy, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("cannot parse API server address %q: %w", cfg.Host, err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the API server as its administrator: %w", err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = transport
	rp.FlushInterval = -1 // watches stream
	rp.ErrorLog = log.New(dropCanceled{}, "", 0)
	reqs := &APIRequests{n: map[string]int{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.add(r)
		r.Header.Del("Authorization")
		rp.ServeHTTP(w, r)
	}))
	srv.Config.ErrorLog = rp.ErrorLog
	srv.StartTLS()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return &Proxy{Config: &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}, Requests: reqs, server: srv}, nil
}

// dropCanceled writes the proxy's errors to the standard logger but those of requests whose client went away (a
// manager that was stopped).
type dropCanceled struct{}

func (dropCanceled) Write(p []byte) (int, error) {
	if !strings.Contains(string(p), "context canceled") {
		log.Print(string(p))
	}
	return len(p), nil
}

// Close stops the proxy, ending the watches that go through it.
func (p *Proxy) Close() {
	p.server.CloseClientConnections()
	p.server.Close()
}

// APIRequests counts API requests by verb: get, list, watch, create, update, patch, delete, deletecollection.
type APIRequests struct {
	mu sync.Mutex
	n  map[string]int
}

// Verbs that write.
var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

func (c *APIRequests) add(r *http.Request) {
	verb := requestVerb(r)
	c.mu.Lock()
	c.n[verb]++
	c.mu.Unlock()
}

// requestVerb names a request as the API server's audit log does. A path with an odd number of segments after
// the group and version (…/namespaces/ns/machines) names a collection.
func requestVerb(r *http.Request) string {
	segments := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(segments) > 0 && segments[0] == "apis" {
		segments = segments[min(3, len(segments)):]
	} else {
		segments = segments[min(2, len(segments)):]
	}
	if len(segments) >= 2 && segments[0] == "namespaces" && len(segments) != 2 {
		segments = segments[2:]
	}
	collection := len(segments)%2 == 1
	switch r.Method {
	case http.MethodGet:
		switch {
		case r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1":
			return "watch"
		case collection:
			return "list"
		}
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if collection {
			return "deletecollection"
		}
		return "delete"
	}
	return strings.ToLower(r.Method)
}

// ByVerb returns how many requests of each verb went through.
func (c *APIRequests) ByVerb() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// Total returns how many requests went through, watches opened included.
func (c *APIRequests) Total() int {
	total := 0
	for _, n := range c.ByVerb() {
		total += n
	}
	return total
}

// Writes returns how many requests wrote.
func (c *APIRequests) Writes() int {
	by, total := c.ByVerb(), 0
	for _, v := range writeVerbs {
		total += by[v]
	}
	return total
}

// Reset forgets the requests counted so far.
func (c *APIRequests) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.n)
}
