package capienv

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// LogLines is how many lines of each manager's log StartT prints when a test fails.
const LogLines = 60

// StartT starts the managers of components for one test (see Start), keeping their files in t.TempDir().
// It fails the test at once when they cannot start. At cleanup it prints the tail of every log if the test
// failed, stops the managers, and fails the test if one had exited on its own or had to be killed.
func StartT(t testing.TB, cfg *rest.Config, c client.Client, components []Component, opts ...Option) *Managers {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	ms, err := Start(ctx, cfg, c, components, append([]Option{WithDir(dir)}, opts...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, tails(dir, components))
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Cluster API manager logs:\n%s", ms.Logs(LogLines))
		}
		stopCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := ms.Stop(stopCtx); err != nil {
			t.Errorf("%v\n%s", err, ms.Logs(LogLines))
		}
	})
	return ms
}

// tails returns the last lines of the logs of components in dir (after Start failed).
func tails(dir string, components []Component) string {
	ms := &Managers{dir: dir}
	for _, c := range components {
		ms.managers = append(ms.managers, &Manager{Component: c, Process: &Process{name: c.Name, logPath: filepath.Join(dir, c.Name+".log")}})
	}
	return ms.Logs(LogLines)
}

// StepTimer returns a function that logs what a test just did, with the time since the first call and since the
// previous one.
func StepTimer(t testing.TB) func(what string) {
	start, last := time.Now(), time.Now()
	return func(what string) {
		t.Helper()
		now := time.Now()
		t.Logf("%5.1fs (+%4.1fs) %s", now.Sub(start).Seconds(), now.Sub(last).Seconds(), what)
		last = now
	}
}

// DumpOnFailure prints, when t has failed, the objects of namespace ns in the API server of c that Dump describes:
// Cluster API's (DumpKinds) and the provider's kinds, the API server named what in the message.
func DumpOnFailure(t testing.TB, c client.Client, what, ns string, kinds ...schema.GroupVersionKind) {
	all := append(slices.Clone(DumpKinds), kinds...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("objects in %q of the %s:\n%s", ns, what, Dump(context.Background(), c, ns, all...))
		}
	})
}
