package e2e_test

import (
	"strings"
	"testing"
)

// queueDeadlock reports whether stacks, every goroutine of the process as the goroutine profile writes them
// with debug=2, show controller-runtime v0.24's priority queue deadlock on shutdown and nothing else that holds
// a controller. When the queue shuts down, workers waiting for an item leave without taking it, and
// handleReadyItems may still send one to them: it blocks for ever holding the queue's locks, and every worker
// that finishes its reconcile then blocks in the queue's Done, so the controller never stops
// (kubernetes-sigs/controller-runtime#3538, fixed by #3540 after v0.24.1). It needs two workers or more: the
// chaos run at 100 × 10 (10 per controller) meets it in about one stop in ten.
//
// It holds only if a handleReadyItems is blocked sending and every controller worker left is blocked in Done:
// a worker anywhere else (in a reconcile of memcloud or capkit) is a hang of ours.
func queueDeadlock(stacks string) bool {
	stuck := false
	for _, g := range strings.Split(stacks, "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		switch {
		case strings.Contains(g, "priorityqueue.(*priorityqueue[...]).handleReadyItems") && strings.Contains(header, "[chan send"):
			stuck = true
		case strings.Contains(g, ").processNextWorkItem(") && !strings.Contains(g, "priorityqueue.(*priorityqueue[...]).Done("):
			return false
		}
	}
	return stuck
}

func TestQueueDeadlock(t *testing.T) {
	const (
		sender = `goroutine 89684 [chan send, 2 minutes]:
sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).handleReadyItems.func1.1()
	/root/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.24.1/pkg/controller/priorityqueue/priorityqueue.go:400 +0x28d
created by sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.New[...] in goroutine 89657`
		inDone = `goroutine 90108 [sync.Mutex.Lock]:
sync.(*Mutex).Lock(...)
sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).Done(0x2073620, {{{0x20e954ab7c70, 0x204db28?}}})
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).processNextWorkItem(0x2068b20, {0x20438e0, 0x20e965a363c0})`
		inReconcile = `goroutine 90109 [select]:
github.com/capkit/capkit/examples/memcloud/cloud.sleep({0x2043828, 0x20e954ab7c70}, 0x3b9aca00)
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).reconcileHandler(0x2068b20)
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).processNextWorkItem(0x2068b20, {0x20438e0, 0x20e965a363c0})`
		idle = `goroutine 7 [select]:
net/http.(*persistConn).writeLoop(0x20e9657dd400)`
	)
	for _, tc := range []struct {
		name   string
		stacks []string
		want   bool
	}{
		{name: "the deadlock", stacks: []string{idle, sender, inDone, inDone}, want: true},
		{name: "a worker in a reconcile", stacks: []string{sender, inDone, inReconcile}},
		{name: "no sender", stacks: []string{idle, inDone}},
		{name: "nothing", stacks: []string{idle}},
	} {
		if got := queueDeadlock(strings.Join(tc.stacks, "\n\n")); got != tc.want {
			t.Errorf("%s: queueDeadlock = %v, want %v", tc.name, got, tc.want)
		}
	}
}
