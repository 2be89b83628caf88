package cloud

import (
	"context"
	"crypto/sha1"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
)

// Config says how to reach a vCenter.
type Config struct {
	// URL is the vCenter's SDK endpoint, e.g. "https://vcenter.example.com/sdk"; a bare host gets https and /sdk.
	URL string
	// Username and Password log in; they are never in an error or a log.
	Username, Password string
	// Insecure skips the verification of the server's certificate; Thumbprint pins it instead (the SHA-1
	// thumbprint, "AA:BB:..."), for a vCenter whose certificate no trusted CA signed.
	Insecure   bool
	Thumbprint string
}

// Client is a logged-in session with one vCenter. It is safe for concurrent use.
//
// It keeps what it found of the inventory (the objects named by path, a template's devices, a network's backing)
// for a while (WithInventoryTTL), in a cache of bounded size (WithInventoryCacheSize): the inventory is observed,
// never created by the client, and changes rarely. An entry is dropped when a call that used it finds its object
// gone (ManagedObjectNotFound), and when it expires; a miss is never cached.
type Client struct {
	vim       *vim25.Client
	inventory *inventoryCache
}

// Connect logs in to the vCenter of cfg: two SOAP calls (RetrieveServiceContent, Login).
func Connect(ctx context.Context, cfg Config, opts ...Option) (*Client, error) {
	o := options{ttl: DefaultInventoryTTL, size: DefaultInventoryCacheSize, now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	if o.now == nil {
		o.now = time.Now
	}
	u, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	u.User = nil // never sent, never in an error: the credentials are cfg's
	sc := soap.NewClient(u, cfg.Insecure)
	if cfg.Thumbprint != "" {
		pinThumbprint(sc, cfg.Thumbprint)
	}
	vim, err := vim25.NewClient(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to vCenter %s: %w", u.Host, err)
	}
	if err := session.NewManager(vim).Login(ctx, url.UserPassword(cfg.Username, cfg.Password)); err != nil {
		return nil, fmt.Errorf("cannot log in to vCenter %s as %q: %w", u.Host, cfg.Username, err)
	}
	return &Client{vim: vim, inventory: newInventoryCache(o)}, nil
}

// pinThumbprint makes sc trust the server's certificate when its SHA-1 thumbprint is thumbprint, and no other,
// in one TLS handshake. (govmomi's SetThumbprint first tries to verify the certificate against trusted CAs and,
// when that fails, dials again: two handshakes per new connection, the first refused, which vCenter logs.)
func pinThumbprint(sc *soap.Client, thumbprint string) {
	tc := sc.DefaultTransport().TLSClientConfig
	tc.InsecureSkipVerify = true // verified below, in the same handshake, against the pinned thumbprint only
	tc.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the server sent no certificate")
		}
		sum := sha1.Sum(cs.PeerCertificates[0].Raw) //nolint:gosec // vSphere's thumbprints are SHA-1: a pin, not a signature
		if got := thumbprintOf(sum[:]); !strings.EqualFold(got, thumbprint) {
			return fmt.Errorf("the certificate's thumbprint %s is not the pinned %s", got, thumbprint)
		}
		return nil
	}
}

// thumbprintOf formats a digest as vSphere shows thumbprints: "AA:BB:...".
func thumbprintOf(sum []byte) string {
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}

// ParseURL returns the SDK URL of raw, a vCenter's host name, host:port or URL, as Connect reaches it: https when
// raw has no scheme, /sdk when it has no path. The URL keeps the user name and password raw may hold, for a caller to
// refuse them; Connect drops them. vspherecloud's webhook checks a VSphereCluster's server with it, so that the server
// accepted is the server Connect reaches.
func ParseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("cannot connect to vCenter: the URL is empty")
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("cannot connect to vCenter: %q is not a URL", raw)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = vim25.Path
	}
	return u, nil
}

// Close logs out, and forgets the inventory.
func (c *Client) Close(ctx context.Context) error {
	c.inventory.clear()
	if err := session.NewManager(c.vim).Logout(ctx); err != nil {
		return fmt.Errorf("cannot log out of vCenter: %w", err)
	}
	return nil
}

// Vim25 returns the SOAP client, e.g. to wrap its RoundTripper.
func (c *Client) Vim25() *vim25.Client { return c.vim }
