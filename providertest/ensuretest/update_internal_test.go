package ensuretest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"
)

type itemSpec struct{ Size string }

// item is a resource of the items cloud: its size can change in place, and it has a state.
type item struct {
	ID, Size, State string
	Tags            map[string]string
}

// items is a ensure.Resource, ensure.Updater and ensure.PendingReporter of an in-test cloud whose
// items have a mutable size. The bug fields break it in one way each.
type items struct {
	byID   map[string]*item
	tokens map[string]string
	next   int

	bugDiffBlind       bool // Diff never sees a difference
	bugAlwaysDrift     bool // Diff always sees one
	bugUpdateRecreates bool // Update makes a new item instead of changing the old one
	bugNeverPending    bool // Pending never reports the state
}

func newItems(bugs items) *items {
	bugs.byID, bugs.tokens = map[string]*item{}, map[string]string{}
	return &bugs
}

func (c *items) Validate(s itemSpec) error {
	if s.Size == "" {
		return errors.New("size must not be empty")
	}
	return nil
}

func (c *items) ID(it *item) string { return it.ID }

func copyOf(it *item) *item { out := *it; out.Tags = maps.Clone(it.Tags); return &out }

func (c *items) Get(_ context.Context, id string) (*item, bool, error) {
	it, ok := c.byID[id]
	if !ok {
		return nil, false, nil
	}
	return copyOf(it), true, nil
}

func (c *items) FindByTags(_ context.Context, tags map[string]string) (*item, bool, error) {
	for _, it := range c.byID {
		match := true
		for k, v := range tags {
			match = match && it.Tags[k] == v
		}
		if match {
			return copyOf(it), true, nil
		}
	}
	return nil, false, nil
}

func (c *items) Create(_ context.Context, s itemSpec, token string, tags map[string]string) (*item, error) {
	if id, ok := c.tokens[token]; ok && c.byID[id] != nil {
		return copyOf(c.byID[id]), nil
	}
	c.next++
	it := &item{ID: fmt.Sprintf("item-%d", c.next), Size: s.Size, Tags: maps.Clone(tags)}
	c.byID[it.ID], c.tokens[token] = it, it.ID
	return copyOf(it), nil
}

func (c *items) Delete(_ context.Context, id string) error { delete(c.byID, id); return nil }

func (c *items) Diff(s itemSpec, it *item) ([]string, bool) {
	if c.bugAlwaysDrift || (!c.bugDiffBlind && s.Size != it.Size) {
		return []string{"size"}, false
	}
	return nil, false
}

func (c *items) Update(ctx context.Context, id string, s itemSpec, _ *item) (*item, error) {
	it, ok := c.byID[id]
	if !ok {
		return nil, fmt.Errorf("item %q not found", id)
	}
	if c.bugUpdateRecreates {
		return c.Create(ctx, s, fmt.Sprintf("update-%d", c.next), it.Tags)
	}
	it.Size = s.Size
	return copyOf(it), nil
}

func (c *items) Pending(it *item) (string, string, bool) {
	return "", "item is " + it.State, it.State != "" && !c.bugNeverPending
}

func itemsUnderTest(bugs items) ResourceUnderTest[itemSpec, *item] {
	return ResourceUnderTest[itemSpec, *item]{
		Key: "item",
		New: func(testing.TB) CloudFixture[itemSpec, *item] {
			c := newItems(bugs)
			return CloudFixture[itemSpec, *item]{
				Resource:        c,
				Count:           func() int { return len(c.byID) },
				DeleteOutOfBand: func(id string) error { delete(c.byID, id); return nil },
				Drift: func(id string) error {
					c.byID[id].Size += "-changed"
					return nil
				},
				MakePending: func(id string) error { c.byID[id].State = "resizing"; return nil },
				Advance:     func(time.Duration) {}, // the items cloud does not depend on time
			}
		},
		ValidSpec:       itemSpec{Size: "small"},
		InvalidSpec:     itemSpec{},
		OutOfBandDelete: ReportTerminal,
	}
}

func TestUpdateScenariosPassForACorrectResource(t *testing.T) {
	r := itemsUnderTest(items{})
	r.OutOfBandDelete = Recreate // the items cloud reuses tokens of deleted items
	assertOutcomes(t, r, slices.Concat(lagging, asynchronous, idempotency), nil)
}

func TestUpdateScenariosCatchBugs(t *testing.T) {
	tests := []struct {
		name    string
		bugs    items
		failing map[string]string
	}{
		{name: "diff never sees a difference", bugs: items{bugDiffBlind: true}, failing: map[string]string{
			"UpdatesDriftOnce":            "want exactly one Update",
			"UpdateFailureIsRetried":      "want an error that is retried",
			"OutOfBandChangeDuringUpdate": "want exactly one Update",
		}},
		{name: "diff always sees one", bugs: items{bugAlwaysDrift: true}, failing: map[string]string{
			"NoUpdateWhenUpToDate":        "want no write",
			"UpdatesDriftOnce":            "want no write",
			"OutOfBandChangeDuringUpdate": "want no write",
			"FindsTrackedResource":        "want ID",
			// an adopted resource is updated at every reconcile, and never done
			"AdoptsAfterStatusLoss":              "Ensure not done after 100 reconciles",
			"NoDuplicateAfterCrashBeforeRecord":  "Ensure not done after 100 reconciles",
			"NoDuplicateAfterLostCreateResponse": "Ensure not done after 100 reconciles",
			"NoSecondCreateWhileSearchLags":      "Ensure not done after 100 reconciles",
		}},
		{name: "update re-creates", bugs: items{bugUpdateRecreates: true}, failing: map[string]string{
			"UpdatesDriftOnce":            "the resource was re-created",
			"UpdateFailureIsRetried":      "after the retried update",
			"OutOfBandChangeDuringUpdate": "",
		}},
		{name: "pending never reported", bugs: items{bugNeverPending: true}, failing: map[string]string{
			"WaitsWhilePending": "Pending must report the state",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := itemsUnderTest(tc.bugs)
			r.OutOfBandDelete = Recreate
			assertOutcomes(t, r, slices.Concat(lagging, asynchronous, idempotency), tc.failing)
		})
	}
}
