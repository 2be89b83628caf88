package ensuretest

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/reconcile/ensure"
)

func TestScenariosPassOnEveryReferenceCloud(t *testing.T) {
	for _, cfg := range refConfigs() {
		t.Run(cfg.String(), func(t *testing.T) {
			RunScenarios(t, refUnderTest(cfg))
		})
	}
}

func TestReferenceCloudsDoWhatTheirSwitchesSay(t *testing.T) {
	all := refConfig{async: true, lag: true, tokens: true, throttle: true}
	for _, tc := range []struct {
		cfg  refConfig
		want func(refStats) int
	}{
		{refConfig{async: true}, func(s refStats) int { return s.accepted }},
		{refConfig{lag: true}, func(s refStats) int { return s.unlisted }},
		{refConfig{lag: true, tokens: true}, func(s refStats) int { return s.tokens }},
		{refConfig{throttle: true}, func(s refStats) int { return s.throttled }},
	} {
		t.Run(tc.cfg.String(), func(t *testing.T) {
			for cfg, on := range map[refConfig]bool{tc.cfg: true, {}: false, all: true} {
				var clouds []*refCloud
				r := refUnderTest(cfg)
				r.New = func(testing.TB) CloudFixture[refSpec, *refResource] {
					c := newRefCloud(cfg)
					clouds = append(clouds, c)
					return c.fixture(c)
				}
				runFake(t, func(t tester) { runScenarios(t, r) })
				var seen refStats
				for _, c := range clouds {
					seen = seen.add(c.seen)
				}
				if on {
					assert.Positive(t, tc.want(seen), "%s: %+v", cfg, seen)
				} else {
					assert.Zero(t, tc.want(seen), "%s: %+v", cfg, seen)
				}
			}
		})
	}
}

// immediateClaim is a Resource of the reference cloud that declares an immediate search, whatever the
// cloud's search does: ensure then notes no create before calling it, and a delete concludes "gone" as soon
// as a search finds nothing.
type immediateClaim struct{ *refCloud }

func (immediateClaim) Guarantees() ensure.Guarantees {
	return ensure.Guarantees{Idempotency: ensure.NotIdempotent, ImmediateSearch: true}
}

func TestDeleteDuringAsyncCreateCatchesALeak(t *testing.T) {
	const scenario = "NoLeakWhenDeletedDuringAsyncCreate"
	cfg := refConfig{async: true, lag: true}
	for _, tc := range []struct {
		name string
		// claim makes the Resource declare an immediate search, which turns off the rule of
		// ensure.Deleted that waits out the search lag of a noted create.
		claim bool
	}{{"declared search lag", false}, {"immediate search claimed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			r := refUnderTest(cfg)
			r.New = func(testing.TB) CloudFixture[refSpec, *refResource] {
				c := newRefCloud(cfg)
				if tc.claim {
					return c.fixture(immediateClaim{c})
				}
				return c.fixture(c)
			}
			f := runFake(t, func(t tester) { runScenarios(t, r) })
			i := slices.Index(f.ran(), scenario)
			require.GreaterOrEqual(t, i, 0, "the scenario runs on an asynchronous cloud")
			sub := f.subtests[i]
			if !tc.claim {
				assert.False(t, sub.failed, "%q", sub.errs)
				return
			}
			require.True(t, sub.failed, "the scenario must report the leak")
			require.Len(t, sub.errs, 1)
			assert.Contains(t, sub.errs[0], "after EnsureDeleted of a create whose operation was never noted (leaked")
			assert.Contains(t, sub.errs[0], "the cloud holds 1 resources, want 0")
		})
	}
}

func TestReferenceScenariosCatchBugs(t *testing.T) {
	const duplicate, leaked = "a duplicate was created", "leaked"
	tests := []struct {
		name string
		cfg  refConfig
		bugs refBugs
		// failing are the scenarios that must fail, with a part of their message.
		failing map[string]string
	}{
		{
			name: "the search lags longer than declared", cfg: refConfig{lag: true}, bugs: refBugs{laterSearch: true},
			failing: map[string]string{
				"CreatesWhenAbsent":                               "did not list",
				"AdoptsAfterStatusLoss":                           "did not list",
				"NoDuplicateAfterCrashBeforeRecord":               duplicate,
				"NoDuplicateAfterCrashBeforeRecordWithSearchLag":  duplicate,
				"NoDuplicateAfterLostCreateResponse":              duplicate,
				"NoDuplicateAfterLostCreateResponseWithSearchLag": duplicate,
				"DeleteRemovesUntrackedResource":                  leaked,
				"NoSecondCreateWhileSearchLags":                   "called Create 1 times, want none",
			},
		},
		{
			name: "an immediate search misses resources being created", cfg: refConfig{async: true}, bugs: refBugs{hidesCreating: true},
			failing: map[string]string{
				"NoDuplicateAfterCrashBeforeRecord":  duplicate,
				"NoDuplicateAfterLostCreateResponse": duplicate,
				"DeleteRemovesUntrackedResource":     leaked,
				"NoLeakWhenDeletedDuringAsyncCreate": leaked,
			},
		},
		{
			name: "a failed operation is not ErrOperationFailed", cfg: refConfig{async: true}, bugs: refBugs{opaqueFailure: true},
			failing: map[string]string{"CreatesAgainAfterFailedOperation": "PollOperation must return an error wrapping ensure.ErrOperationFailed"},
		},
		{
			name: "create waits for its operation", cfg: refConfig{async: true}, bugs: refBugs{holdsWorker: true},
			failing: map[string]string{
				"AsyncCreateHoldsNoWorker":                     "Ensure must not wait for the operation",
				"NoLeakWhenDeletedDuringAsyncCreate":           "Ensure must not wait for the operation",
				"NoDuplicateAfterCrashBeforeRecordOfOperation": "Create must return ensure.Accepted",
				"CreatesAgainAfterFailedOperation":             "quota exceeded",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			notRun := slices.Concat(updates, idempotency)
			if tc.cfg.async {
				notRun = append(notRun, slices.Concat(lagging, tokenless)...)
			} else {
				notRun = append(notRun, asynchronous...)
			}
			assertOutcomes(t, buggyRefUnderTest(tc.cfg, tc.bugs), notRun, tc.failing)
		})
	}
}
