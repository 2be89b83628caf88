package identity_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/capkit/capkit/identity"
)

// session stands for a provider's logged-in client.
type session struct {
	n      int
	closed int
}

// sessions builds and closes sessions and records both.
type sessions struct {
	mu     sync.Mutex
	built  []*session
	closed []int // the numbers of the sessions closed, in order
}

func (s *sessions) build(context.Context) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &session{n: len(s.built) + 1}
	s.built = append(s.built, c)
	return c, nil
}

func (s *sessions) close(ctx context.Context, c *session) error {
	if _, ok := ctx.Deadline(); !ok {
		return errors.New("close without deadline")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c.closed++
	s.closed = append(s.closed, c.n)
	return nil
}

// TestClients runs sequences of Gets ("A k1": cluster A with the credentials k1) and Releases ("-A") and checks which
// sessions were built and closed.
func TestClients(t *testing.T) {
	tests := []struct {
		name       string
		ops        []string
		wantBuilt  int
		wantClosed []int
		wantOpen   int
	}{
		{name: "a cluster reconciled again, and by its machines, keeps its session",
			ops: []string{"A k1", "A k1", "A k1"}, wantBuilt: 1, wantOpen: 1},
		{name: "rotation closes the old session",
			ops: []string{"A k1", "A k2", "A k2"}, wantBuilt: 2, wantClosed: []int{1}, wantOpen: 1},
		{name: "an endpoint changed is a new session",
			ops: []string{"A k1", "A@other k1"}, wantBuilt: 2, wantClosed: []int{1}, wantOpen: 1},
		{name: "two clusters with the same credentials share one session",
			ops: []string{"A k1", "B k1"}, wantBuilt: 1, wantOpen: 1},
		{name: "deleting one of two keeps the session",
			ops: []string{"A k1", "B k1", "-A", "B k1"}, wantBuilt: 1, wantOpen: 1},
		{name: "deleting both closes it",
			ops: []string{"A k1", "B k1", "-A", "-B"}, wantBuilt: 1, wantClosed: []int{1}},
		{name: "rotation of one of two keeps the shared session",
			ops: []string{"A k1", "B k1", "A k2"}, wantBuilt: 2, wantOpen: 2},
		{name: "the second cluster rotated too closes it",
			ops: []string{"A k1", "B k1", "A k2", "B k2"}, wantBuilt: 2, wantClosed: []int{1}, wantOpen: 1},
		{name: "rotation back and forth",
			ops: []string{"A k1", "A k2", "A k1"}, wantBuilt: 3, wantClosed: []int{1, 2}, wantOpen: 1},
		{name: "a cluster never seen is a no-op", ops: []string{"-A", "A k1", "-B"}, wantBuilt: 1, wantOpen: 1},
		{name: "released twice", ops: []string{"A k1", "-A", "-A"}, wantBuilt: 1, wantClosed: []int{1}},
		{name: "a cluster released and reconciled again logs in again",
			ops: []string{"A k1", "-A", "A k1"}, wantBuilt: 2, wantClosed: []int{1}, wantOpen: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			var s sessions
			c := identity.NewClients(s.close)
			for _, op := range tt.ops {
				if name, ok := strings.CutPrefix(op, "-"); ok {
					require.NoError(t, c.Release(ctx, types.NamespacedName{Namespace: "ns", Name: name}))
					continue
				}
				user, key, _ := strings.Cut(op, " ")
				name, endpoint, _ := strings.Cut(user, "@")
				got, err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: name}, endpoint,
					identity.NewCredentials(map[string][]byte{"password": []byte(key)}), s.build)
				require.NoError(t, err)
				assert.Zero(t, got.closed, "%s: a closed session returned", op)
			}
			assert.Len(t, s.built, tt.wantBuilt, "built")
			assert.Equal(t, tt.wantClosed, s.closed, "closed")
			assert.Equal(t, tt.wantOpen, c.Len(), "open")
		})
	}
}

// TestClientsErrors: a failed build attaches nothing and keeps the cluster's session; a failed close is Release's
// error; a nil close drops.
func TestClientsErrors(t *testing.T) {
	ctx := t.Context()
	a := types.NamespacedName{Namespace: "ns", Name: "a"}
	k1 := identity.NewCredentials(map[string][]byte{"password": []byte("k1")})
	k2 := identity.NewCredentials(map[string][]byte{"password": []byte("k2")})
	var s sessions
	closeErr := errors.New("cannot log out: connection refused")
	c := identity.NewClients(func(ctx context.Context, x *session) error {
		_ = s.close(ctx, x)
		return closeErr
	}, identity.WithCloseTimeout(time.Second))
	first, err := c.Get(ctx, a, "", k1, s.build)
	require.NoError(t, err)
	_, err = c.Get(ctx, a, "", k2, func(context.Context) (*session, error) { return nil, errors.New("cannot log in") })
	require.EqualError(t, err, "cannot log in")
	assert.Equal(t, 1, c.Len())
	again, err := c.Get(ctx, a, "", k1, s.build)
	require.NoError(t, err)
	assert.Same(t, first, again, "the failed rotation kept the session")

	require.ErrorIs(t, c.Release(ctx, a), closeErr)
	assert.Equal(t, []int{1}, s.closed)
	assert.Zero(t, c.Len())

	dropped := identity.NewClients[*session](nil)
	_, err = dropped.Get(ctx, a, "", k1, s.build)
	require.NoError(t, err)
	require.NoError(t, dropped.Release(ctx, a))
	assert.Zero(t, dropped.Len())
}

// TestClientsConcurrent gets, rotates and releases from many goroutines (run it with -race): every session built
// is closed exactly once after all clusters are released.
func TestClientsConcurrent(t *testing.T) {
	ctx := t.Context()
	var s sessions
	c := identity.NewClients(s.close)
	clusters := []types.NamespacedName{{Namespace: "ns", Name: "a"}, {Namespace: "ns", Name: "b"}, {Namespace: "ns", Name: "c"}}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				cluster := clusters[(g+i)%len(clusters)]
				if i%7 == 0 {
					assert.NoError(t, c.Release(ctx, cluster))
					continue
				}
				creds := identity.NewCredentials(map[string][]byte{"password": fmt.Appendf(nil, "k%d", i%3)})
				_, err := c.Get(ctx, cluster, "vc", creds, s.build)
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	for _, cluster := range clusters {
		require.NoError(t, c.Release(ctx, cluster))
	}
	assert.Zero(t, c.Len())
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.built {
		assert.Equal(t, 1, x.closed, "session %d", x.n)
	}
}

// Clients doc: builds of other keys "never wait for each other": a tenant whose vCenter does not answer does not hold
// up the login of another.
func TestClientsBuildsOfOtherKeysDoNotWait(t *testing.T) {
	ctx := t.Context()
	c := identity.NewClients[string](nil)
	blocked, release := make(chan struct{}), make(chan struct{})
	go func() {
		_, _ = c.Get(ctx, types.NamespacedName{Namespace: "a", Name: "slow"}, "unreachable", identity.NewCredentials(map[string][]byte{"password": []byte("a")}),
			func(context.Context) (string, error) { close(blocked); <-release; return "slow", nil })
	}()
	<-blocked
	defer close(release)
	done := make(chan string, 1)
	go func() {
		got, err := c.Get(ctx, types.NamespacedName{Namespace: "b", Name: "fast"}, "vc", identity.NewCredentials(map[string][]byte{"password": []byte("b")}),
			func(context.Context) (string, error) { return "fast", nil })
		assert.NoError(t, err)
		done <- got
	}()
	select {
	case got := <-done:
		assert.Equal(t, "fast", got)
	case <-time.After(10 * time.Second): // only stops a run that deadlocks
		t.Fatal("the build of another key waited for the slow one")
	}
}

// The builds of one key never overlap, even after a build failed while other Gets of the key waited: one client is
// built after the failure, and the waiters share it.
func TestClientsBuildsOfOneKeyNeverOverlap(t *testing.T) {
	ctx := t.Context()
	c := identity.NewClients[int](nil)
	creds := identity.NewCredentials(map[string][]byte{"password": []byte("p")})
	var mu sync.Mutex
	running, most, built := 0, 0, 0
	first := make(chan struct{})
	build := func(context.Context) (int, error) {
		mu.Lock()
		running++
		most = max(most, running)
		built++
		n := built
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		if n == 1 {
			<-first // the others queue up behind it, then it fails
			return 0, errors.New("vCenter did not answer")
		}
		time.Sleep(10 * time.Millisecond)
		return n, nil
	}
	var wg sync.WaitGroup
	results := make([]int, 6)
	errs := make([]error, 6)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("c%d", i)}, "vc", creds, build)
		}()
		if i == 0 {
			require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return built == 1 }, 10*time.Second, time.Millisecond)
		}
	}
	time.Sleep(50 * time.Millisecond) // the other five wait for the first build
	close(first)
	wg.Wait()
	assert.Equal(t, 1, most, "two builds of one key ran at once")
	assert.Equal(t, 2, built, "the failed build and one more")
	failed := 0
	for i := range results {
		if errs[i] != nil {
			failed++
			continue
		}
		assert.Equal(t, 2, results[i], "Get %d shares the one client built after the failure", i)
	}
	assert.Equal(t, 1, failed)
}
