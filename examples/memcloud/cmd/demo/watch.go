package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/memcloud/capisim"
)

// watcher drives the cluster with the CAPI simulator and prints the table whenever it changes.
type watcher struct {
	out   io.Writer
	d     *capisim.Driver
	p     *capisim.Provider
	env   client.Client
	start time.Time
	last  string
}

// until syncs every 50ms and prints changes until done reports true or timeout passes; it reports whether
// done was reached.
func (w *watcher) until(ctx context.Context, timeout time.Duration, phase string, done func(context.Context) (bool, error)) bool {
	begin := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := w.d.Sync(ctx); err != nil {
			fmt.Fprintf(w.out, "  (sync: %v)\n", err)
		}
		w.print(ctx)
		ok, err := done(ctx)
		if err == nil && ok {
			fmt.Fprintf(w.out, "--- %s done in %s\n", phase, time.Since(begin).Round(time.Millisecond))
			return true
		}
		select {
		case <-deadline.C:
			fmt.Fprintf(w.out, "--- %s did not finish within %s\n", phase, timeout)
			return false
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// print prints the table when it differs from the last one printed.
func (w *watcher) print(ctx context.Context) {
	rs, err := rows(ctx, w.env, w.d, w.p.Cloud)
	if err != nil {
		return
	}
	t := table(rs)
	if len(rs) == 0 {
		t = "(no MemCluster or MemMachine left)\n"
	}
	if t == w.last {
		return
	}
	w.last = t
	c := w.p.Cloud
	fmt.Fprintf(w.out, "\n[%5.2fs] cloud: %d live resources, %d calls, %d faults\n", time.Since(w.start).Seconds(), len(c.All()), c.Calls().Total(), c.Calls().Faults)
	fmt.Fprint(w.out, t)
}
