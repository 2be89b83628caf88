package vspheretest

import (
	"bytes"
	"crypto/tls"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/vmware/govmomi/vim25/soap"
)

// maxCountedBody bounds how much of a SOAP request Endpoint reads to name its method; a longer request is counted
// as "SOAP ?" and forwarded whole.
const maxCountedBody = 1 << 20

// Endpoint is another address of the simulator whose requests are counted: the vCenter API calls of one client
// (a provider's manager), measured at the server, whatever library makes them. Each Endpoint has its own
// certificate.
type Endpoint struct {
	// URL is host:port, for a provider's server field.
	URL string
	// Thumbprint is the SHA-1 thumbprint of the endpoint's certificate.
	Thumbprint string
	// Requests counts what went through the endpoint.
	Requests *Requests

	server *httptest.Server
}

// Endpoint returns a new endpoint of the simulator, closed with it.
func (s *Simulator) Endpoint() *Endpoint {
	target := &url.URL{Scheme: "https", Host: s.server.URL.Host}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // the simulator's own certificate, on loopback
	proxy.FlushInterval = -1
	reqs := &Requests{n: map[string]int{}}
	proxy.ErrorLog = log.New(serverLog{reqs}, "", 0)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.add(r)
		proxy.ServeHTTP(w, r)
	}))
	srv.Config.ErrorLog = proxy.ErrorLog
	srv.StartTLS()
	e := &Endpoint{URL: srv.Listener.Addr().String(), Thumbprint: soap.ThumbprintSHA1(srv.Certificate()), Requests: reqs, server: srv}
	s.mu.Lock()
	s.proxies = append(s.proxies, e)
	s.mu.Unlock()
	return e
}

// Requests counts HTTP requests to vCenter by kind: "SOAP <method>" for the SOAP API, "REST <verb> <path>" for the
// REST API (object IDs in the path as {id}).
type Requests struct {
	mu sync.Mutex
	n  map[string]int
}

// soapMethod finds the first element in a SOAP body.
var soapMethod = regexp.MustCompile(`<(?:[A-Za-z0-9_]+:)?Body[^>]*>\s*<(?:[A-Za-z0-9_]+:)?([A-Za-z0-9_]+)`)

// restID is a path segment that names one object.
var restID = regexp.MustCompile(`/(id:[^/?]+|urn:[^/?]+|[0-9a-f]{8}-[0-9a-f-]{27,})`)

// HandshakeRefused counts the TLS handshakes a client ended because it did not trust the certificate: govmomi's
// client with a pinned thumbprint (cloud.Config.Thumbprint, CAPV's spec.thumbprint) first verifies the certificate
// against its roots, then connects again without and compares the thumbprint, so each of its new connections costs
// one refused handshake.
const HandshakeRefused = "TLS handshake refused"

// serverLog counts the refused handshakes the endpoint's server logs, drops the errors of requests whose client
// went away (a manager that was stopped), and writes the rest to the standard logger.
type serverLog struct{ reqs *Requests }

func (l serverLog) Write(p []byte) (int, error) {
	line := string(p)
	switch {
	case strings.Contains(line, "TLS handshake error") && strings.Contains(line, "bad certificate"):
		l.reqs.inc(HandshakeRefused)
	case strings.Contains(line, "context canceled"):
	default:
		log.Print(line)
	}
	return len(p), nil
}

func (c *Requests) inc(kind string) {
	c.mu.Lock()
	c.n[kind]++
	c.mu.Unlock()
}

func (c *Requests) add(r *http.Request) {
	kind := "REST " + r.Method + " " + restID.ReplaceAllString(r.URL.Path, "/{id}")
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sdk") {
		kind = "SOAP ?"
		body, err := io.ReadAll(io.LimitReader(r.Body, maxCountedBody+1))
		if err == nil && len(body) <= maxCountedBody {
			if m := soapMethod.FindSubmatch(body); m != nil {
				kind = "SOAP " + string(m[1])
			}
		}
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	}
	c.inc(kind)
}

// Total returns how many requests went through (refused handshakes are no request).
func (c *Requests) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for kind, n := range c.n {
		if kind != HandshakeRefused {
			total += n
		}
	}
	return total
}

// ByKind returns how many requests of each kind went through.
func (c *Requests) ByKind() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// Reset forgets the requests counted so far.
func (c *Requests) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.n)
}
