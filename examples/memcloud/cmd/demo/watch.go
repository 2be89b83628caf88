package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest/lifecycle"
)

// watcher prints the table of the lifecycle's objects whenever it changes, and the end of each phase.
type watcher struct {
	out   io.Writer
	l     *lifecycle.Driver
	p     *memcloudtest.Provider
	env   client.Client
	start time.Time
	last  string
}

// phase runs a step of the lifecycle (whose polls print the table) and reports whether it finished.
func (w *watcher) phase(name string, step func(context.Context) error) bool {
	begin := time.Now()
	ctx := context.Background()
	if err := step(ctx); err != nil {
		w.print(ctx)
		fmt.Fprintf(w.out, "--- %s did not finish: %v\n", name, err)
		return false
	}
	w.print(ctx)
	fmt.Fprintf(w.out, "--- %s done in %s\n", name, time.Since(begin).Round(time.Millisecond))
	return true
}

// print prints the table when it differs from the last one printed.
func (w *watcher) print(ctx context.Context) {
	rs, err := rows(ctx, w.env, w.l)
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
