package identity

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
)

// DefaultCloseTimeout bounds a close of Clients (WithCloseTimeout).
const DefaultCloseTimeout = 10 * time.Second

// Clients holds the cloud clients of InfraClusters: one per endpoint and credentials, shared by the clusters that
// use the same ones, and closed once none does. A cluster uses one client at a time: when its endpoint or
// credentials change (a rotated Secret), Get moves it to the client of the new ones and closes the old client if no
// other cluster uses it; Release, from the cluster's delete, does the same for a deleted cluster. It is the keyed
// client cache of a provider whose client depends on more than an identity (vSphere's vCenter session: the server
// is the InfraCluster's), or that takes credentials from a Secret the InfraCluster names (SecretCache). It is safe
// for concurrent use.
//
// Users are InfraClusters, never machines: a machine's reconcile gets the client of its cluster's key, and a
// cluster's machines share its client. A client closed while another reconcile still calls it (the old client of
// a rotation) fails that call, which the reconcile retries with the new one.
type Clients[C any] struct {
	close   func(context.Context, C) error
	timeout time.Duration

	mu     sync.Mutex
	builds map[[sha256.Size]byte]*keyBuild // one build per key at a time, so that clusters with one key log in once
	byKey  map[[sha256.Size]byte]*sharedClient[C]
	users  map[types.NamespacedName][sha256.Size]byte
}

// keyBuild serializes the builds of one key; it is dropped when no Get waits for it.
type keyBuild struct {
	sync.Mutex
	gets int // the Gets holding or waiting for it, under Clients.mu
}

type sharedClient[C any] struct {
	client C
	users  int
}

// ClientsOption configures NewClients.
type ClientsOption func(*clientsSettings)

type clientsSettings struct{ timeout time.Duration }

// WithCloseTimeout bounds each close (DefaultCloseTimeout); a close runs even when the reconcile's context is done.
func WithCloseTimeout(d time.Duration) ClientsOption {
	return func(s *clientsSettings) {
		if d > 0 {
			s.timeout = d
		}
	}
}

// NewClients returns Clients that close a client no cluster uses with closeFn (e.g. a logout), or drop it when
// closeFn is nil.
func NewClients[C any](closeFn func(context.Context, C) error, opts ...ClientsOption) *Clients[C] {
	set := clientsSettings{timeout: DefaultCloseTimeout}
	for _, o := range opts {
		if o != nil {
			o(&set)
		}
	}
	return &Clients[C]{close: closeFn, timeout: set.timeout,
		builds: map[[sha256.Size]byte]*keyBuild{}, byKey: map[[sha256.Size]byte]*sharedClient[C]{}, users: map[types.NamespacedName][sha256.Size]byte{}}
}

// Get returns the client of endpoint (whatever besides the credentials the client depends on, such as a server's
// URL; not secret) and creds for cluster, building it with build when no cluster uses one. The key is a hash: the
// credentials are neither kept nor shown. When cluster used another client, no more used, Get closes that one; a
// failed close is logged to the logger of ctx (logr.FromContextOrDiscard) and is no error of Get. The builds of one
// key run one at a time, so that clusters with the same key build once; builds of other keys do not wait for each
// other, and a Get of a client that exists never waits for one.
func (c *Clients[C]) Get(ctx context.Context, cluster types.NamespacedName, endpoint string, creds Credentials,
	build func(context.Context) (C, error)) (C, error) {
	key := sha256.Sum256(fmt.Appendf(nil, "%q %s", endpoint, creds.get().fingerprint))
	if client, ok := c.use(ctx, cluster, key); ok {
		return client, nil
	}
	c.mu.Lock()
	b, ok := c.builds[key]
	if !ok {
		b = &keyBuild{}
		c.builds[key] = b
	}
	b.gets++
	c.mu.Unlock()
	b.Lock()
	defer func() {
		b.Unlock()
		c.mu.Lock()
		if b.gets--; b.gets == 0 {
			delete(c.builds, key) // bounded by the keys being built
		}
		c.mu.Unlock()
	}()
	if client, ok := c.use(ctx, cluster, key); ok { // built meanwhile
		return client, nil
	}
	client, err := build(ctx)
	if err != nil {
		var zero C
		return zero, err
	}
	c.mu.Lock()
	c.byKey[key] = &sharedClient[C]{client: client}
	old := c.attach(cluster, key)
	c.mu.Unlock()
	c.closeAll(ctx, old)
	return client, nil
}

// use returns the client of key, with cluster among its users, if there is one.
func (c *Clients[C]) use(ctx context.Context, cluster types.NamespacedName, key [sha256.Size]byte) (C, bool) {
	c.mu.Lock()
	e, ok := c.byKey[key]
	if !ok {
		c.mu.Unlock()
		var zero C
		return zero, false
	}
	old := c.attach(cluster, key)
	c.mu.Unlock()
	c.closeAll(ctx, old)
	return e.client, true
}

// attach makes cluster a user of key's client, which exists, and returns the client it leaves that no cluster uses
// any more, removed. c.mu is held.
func (c *Clients[C]) attach(cluster types.NamespacedName, key [sha256.Size]byte) []C {
	prev, had := c.users[cluster]
	if had && prev == key {
		return nil
	}
	c.byKey[key].users++
	c.users[cluster] = key
	if !had {
		return nil
	}
	return c.leave(prev)
}

// leave drops a user of key's client and returns the client when that was the last, removed. c.mu is held.
func (c *Clients[C]) leave(key [sha256.Size]byte) []C {
	e := c.byKey[key]
	if e.users--; e.users > 0 {
		return nil
	}
	delete(c.byKey, key)
	return []C{e.client}
}

// Release drops cluster, e.g. once its delete is done, and closes its client when no other cluster uses it. A
// cluster that uses no client is a no-op. The error is the close's.
func (c *Clients[C]) Release(ctx context.Context, cluster types.NamespacedName) error {
	c.mu.Lock()
	key, ok := c.users[cluster]
	var old []C
	if ok {
		delete(c.users, cluster)
		old = c.leave(key)
	}
	c.mu.Unlock()
	return c.closeEach(ctx, old)
}

// Len returns how many clients are open.
func (c *Clients[C]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey)
}

// closeAll closes clients, logging a failure.
func (c *Clients[C]) closeAll(ctx context.Context, clients []C) {
	if err := c.closeEach(ctx, clients); err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "cannot close a client no cluster uses any more")
	}
}

// closeEach closes clients, each within the timeout, even when ctx is done.
func (c *Clients[C]) closeEach(ctx context.Context, clients []C) error {
	if c.close == nil || len(clients) == 0 {
		return nil
	}
	var errs []error
	for _, client := range clients {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
		errs = append(errs, c.close(cctx, client))
		cancel()
	}
	return errors.Join(errs...)
}
