package e2e_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The environment variables that size the chaos run (make chaos-100x10: 100 and 9).
const (
	chaosClustersEnv = "CAPKIT_CHAOS_CLUSTERS"
	chaosWorkersEnv  = "CAPKIT_CHAOS_WORKERS"
)

// defaultChaosSize is the size make test runs: 20 clusters × 5 Machines.
var defaultChaosSize = chaosSize{clusters: 20, workers: 4}

const (
	// chaosMaxWorkers bounds the workers of a cluster: they take their addresses from one /24 subnet.
	chaosMaxWorkers = 200
	// chaosMinObjects is the smallest fleet whose seeded restart thresholds fit (see thresholds).
	chaosMinObjects = 20
	// chaosWaitPerMachine and chaosMinWait bound each phase: the larger of the two, times the Machines for the
	// first. On 2 cores shared with other work, 100 Machines provision in about 1m30s (0.9 s each, most of it
	// fixed latency) and 1,000 in about 23m30s (1.4 s each).
	chaosWaitPerMachine = 2 * time.Second
	chaosMinWait        = 6 * time.Minute
	// chaosObjectsPerPoker is the number of memcloud objects one conflict agent pokes, once every chaosPokeEvery:
	// the fleet gets one agent per chaosObjectsPerPoker objects, so each object is poked about every 3.6 s at
	// every size, as at the default size (120 objects, one agent).
	chaosObjectsPerPoker = 120
	chaosPokeEvery       = 30 * time.Millisecond
)

// chaosSize is the size of the chaos run: clusters of one control plane Machine and workers worker Machines.
type chaosSize struct {
	clusters, workers int
}

// chaosSizeFromEnv returns the size that CAPKIT_CHAOS_CLUSTERS and CAPKIT_CHAOS_WORKERS set, each defaulting to
// defaultChaosSize's when unset or empty.
func chaosSizeFromEnv(getenv func(string) string) (chaosSize, error) {
	s := defaultChaosSize
	var err error
	if s.clusters, err = chaosCount(getenv, chaosClustersEnv, s.clusters, 1, 1000); err != nil {
		return chaosSize{}, err
	}
	if s.workers, err = chaosCount(getenv, chaosWorkersEnv, s.workers, 0, chaosMaxWorkers); err != nil {
		return chaosSize{}, err
	}
	if s.objects() < chaosMinObjects {
		return chaosSize{}, fmt.Errorf("cannot size the chaos run: %s=%d with %s=%d makes %d memcloud objects, the seeded restarts need at least %d",
			chaosClustersEnv, s.clusters, chaosWorkersEnv, s.workers, s.objects(), chaosMinObjects)
	}
	return s, nil
}

// chaosCount returns the whole number from lo to hi in the environment variable name, or def when it is unset.
func chaosCount(getenv func(string) string, name string, def, lo, hi int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("cannot size the chaos run: %s=%q is not a whole number from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// machines is the number of Machines: a control plane Machine and the workers of each cluster.
func (s chaosSize) machines() int { return s.clusters * (1 + s.workers) }

// objects is the number of memcloud objects: a MemCluster per cluster, a MemMachine per Machine.
func (s chaosSize) objects() int { return s.clusters + s.machines() }

// resourcesPerCluster is a network, two subnets, a security group, a load balancer and an instance per Machine.
func (s chaosSize) resourcesPerCluster() int { return 1 + 2 + 1 + 1 + 1 + s.workers }

// wait bounds each phase (provisioning, deletion): it grows with the Machines, never below chaosMinWait.
func (s chaosSize) wait() time.Duration {
	return max(chaosMinWait, time.Duration(s.machines())*chaosWaitPerMachine)
}

// pokers is the number of conflict agents: one per chaosObjectsPerPoker memcloud objects (1 at the default size).
func (s chaosSize) pokers() int {
	return (s.objects() + chaosObjectsPerPoker - 1) / chaosObjectsPerPoker
}

// pokeEvery is how often each conflict agent pokes: chaosPokeEvery, stretched so that the agents together poke
// each object as often as one agent pokes the default fleet's 120.
func (s chaosSize) pokeEvery() time.Duration {
	return chaosPokeEvery * time.Duration(s.pokers()*chaosObjectsPerPoker) / time.Duration(s.objects())
}

// concurrency is the number of workers of each memcloud controller: one per chaosObjectsPerPoker objects (1 at
// the default size). One worker cannot keep up with 1,100 objects: each reconcile waits for the API server and
// the cloud, and every restart queues every object again.
func (s chaosSize) concurrency() int { return s.pokers() }

// cluster returns the name of the i-th Cluster.
func (s chaosSize) cluster(i int) string { return fmt.Sprintf("c%02d", i) }

func (s chaosSize) String() string {
	return fmt.Sprintf("%d clusters × (1 control plane + %d workers) = %d Machines", s.clusters, s.workers, s.machines())
}

// chaosSizeT returns the size of this run, failing the test when the environment sets an invalid one.
func chaosSizeT(t *testing.T) chaosSize {
	t.Helper()
	s, err := chaosSizeFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestChaosSizeFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		name    string
		getenv  func(string) string
		want    chaosSize
		wantErr string
	}{
		{name: "default", getenv: env(), want: chaosSize{clusters: 20, workers: 4}},
		{name: "100x10", getenv: env(chaosClustersEnv, "100", chaosWorkersEnv, "9"), want: chaosSize{clusters: 100, workers: 9}},
		{name: "no workers", getenv: env(chaosClustersEnv, "10", chaosWorkersEnv, "0"), want: chaosSize{clusters: 10}},
		{name: "not a number", getenv: env(chaosClustersEnv, "ten"),
			wantErr: `cannot size the chaos run: CAPKIT_CHAOS_CLUSTERS="ten" is not a whole number from 1 to 1000`},
		{name: "zero clusters", getenv: env(chaosClustersEnv, "0"),
			wantErr: `cannot size the chaos run: CAPKIT_CHAOS_CLUSTERS="0" is not a whole number from 1 to 1000`},
		{name: "negative workers", getenv: env(chaosWorkersEnv, "-1"),
			wantErr: `cannot size the chaos run: CAPKIT_CHAOS_WORKERS="-1" is not a whole number from 0 to 200`},
		{name: "too small", getenv: env(chaosClustersEnv, "2"),
			wantErr: "cannot size the chaos run: CAPKIT_CHAOS_CLUSTERS=2 with CAPKIT_CHAOS_WORKERS=4 makes 12 memcloud objects, the seeded restarts need at least 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chaosSizeFromEnv(tc.getenv)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}

	// The derived counts, at the default size and at make chaos-100x10's.
	for _, s := range []chaosSize{defaultChaosSize, {clusters: 100, workers: 9}} {
		t.Run(s.String(), func(t *testing.T) {
			per := float64(s.pokers()) / s.pokeEvery().Seconds() / float64(s.objects())
			assert.InDelta(t, 1/3.6, per, 0.01, "pokes per object per second")
			assert.GreaterOrEqual(t, s.wait(), chaosMinWait)
		})
	}
	assert.Equal(t, []int{100, 120, 10, 1}, []int{defaultChaosSize.machines(), defaultChaosSize.objects(),
		defaultChaosSize.resourcesPerCluster(), defaultChaosSize.pokers()}, "machines, objects, resources per cluster, pokers")
	assert.Equal(t, 6*time.Minute, defaultChaosSize.wait())
	large := chaosSize{clusters: 100, workers: 9}
	assert.Equal(t, []int{1000, 1100, 15, 10}, []int{large.machines(), large.objects(), large.resourcesPerCluster(), large.pokers()},
		"machines, objects, resources per cluster, pokers")
	assert.Equal(t, 33*time.Minute+20*time.Second, large.wait())
}
