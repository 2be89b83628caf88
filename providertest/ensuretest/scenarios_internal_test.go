package ensuretest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
)

// networks is a ensure.Resource of memcloud networks, written the way a provider would. The bug fields
// break it in one way each, to prove that the scenarios catch the bug.
type networks struct {
	c *cloud.Cloud
	// recreate retries a create whose token belongs to a deleted network with the next token in a fixed
	// sequence, so that a network deleted out of band is created again.
	recreate bool

	bugNoToken          bool // Create ignores the idempotency token
	bugFindIgnoresTags  bool // FindByTags never finds anything
	bugDeleteNotFound   bool // Delete fails on NotFound
	bugValidateAccepts  bool // Validate accepts everything
	bugGetNotFoundError bool // Get returns NotFound as an error
	bugNoTags           bool // Create drops the tags
	bugTerminalAlways   bool // every cloud error is terminal
}

func (n *networks) Validate(s cloud.NetworkSpec) error {
	if n.bugValidateAccepts {
		return nil
	}
	var errs []error
	if s.Name == "" {
		errs = append(errs, errors.New("name must not be empty"))
	}
	if !strings.Contains(s.CIDR, "/") {
		errs = append(errs, fmt.Errorf("cidr %q must be a prefix such as 10.0.0.0/16", s.CIDR))
	}
	return errors.Join(errs...)
}

func (n *networks) classify(err error) error {
	switch {
	case err == nil:
		return nil
	case n.bugTerminalAlways, errors.Is(err, cloud.ErrInvalidParameter), errors.Is(err, cloud.ErrTokenReused):
		return step.Terminal("CloudRefused", err)
	}
	return err
}

func (n *networks) ID(net *cloud.Network) string { return net.ID }

// Guarantees declares what memcloud does: a network created with a token it has seen is the first one, and
// its search lists a network at once (but when a fixture lags it, LagSearch).
func (n *networks) Guarantees() ensure.Guarantees {
	return ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true}
}

func (n *networks) Get(ctx context.Context, id string) (*cloud.Network, bool, error) {
	net, err := n.c.GetNetwork(ctx, id)
	if errors.Is(err, cloud.ErrNotFound) && !n.bugGetNotFoundError {
		return nil, false, nil
	}
	return net, err == nil, n.classify(err)
}

func (n *networks) FindByTags(ctx context.Context, tags map[string]string) (*cloud.Network, bool, error) {
	found, err := n.c.FindNetworks(ctx, tags)
	if err != nil || len(found) == 0 || n.bugFindIgnoresTags {
		return nil, false, n.classify(err)
	}
	return &found[0], true, nil
}

func (n *networks) Create(ctx context.Context, s cloud.NetworkSpec, token string, tags map[string]string) (*cloud.Network, error) {
	s.Tags = tags
	if n.bugNoTags {
		s.Tags = nil
	}
	for i := 0; ; i++ {
		s.IdempotencyToken = token
		if i > 0 {
			s.IdempotencyToken = fmt.Sprintf("%s-%d", token, i)
		}
		if n.bugNoToken {
			s.IdempotencyToken = ""
		}
		net, err := n.c.CreateNetwork(ctx, s)
		if errors.Is(err, cloud.ErrTokenReused) && n.recreate {
			continue
		}
		if err != nil {
			return nil, n.classify(err)
		}
		return net, nil
	}
}

func (n *networks) Delete(ctx context.Context, id string) error {
	err := n.c.DeleteNetwork(ctx, id)
	if errors.Is(err, cloud.ErrNotFound) && !n.bugDeleteNotFound {
		return nil
	}
	return n.classify(err)
}

// networkFixture returns a fixture on a fresh memcloud with res's options. With injectFaults the fixture uses
// the cloud's own fault injection and search lag hooks.
func networkFixture(t testing.TB, res networks, injectFaults bool) CloudFixture[cloud.NetworkSpec, *cloud.Network] {
	c, err := cloud.New()
	require.NoError(t, err)
	res.c = c
	f := CloudFixture[cloud.NetworkSpec, *cloud.Network]{
		Resource:        &res,
		Count:           func() int { return c.Count(cloud.KindNetwork) },
		DeleteOutOfBand: func(id string) error { return c.DeleteNetwork(context.Background(), id) },
	}
	if injectFaults {
		f.FailNextCreateAfterChange = func() error { return c.FailNext(cloud.VerbCreate.On(cloud.KindNetwork), cloud.AfterChange) }
		f.LagSearch = func() error { return c.SetFaults(cloud.FaultConfig{SearchLag: 1}) }
	}
	return f
}

func networkUnderTest(res networks, injectFaults bool, policy OutOfBandDelete) ResourceUnderTest[cloud.NetworkSpec, *cloud.Network] {
	return ResourceUnderTest[cloud.NetworkSpec, *cloud.Network]{
		Key: "network",
		New: func(t testing.TB) CloudFixture[cloud.NetworkSpec, *cloud.Network] {
			return networkFixture(t, res, injectFaults)
		},
		ValidSpec:       cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16"},
		InvalidSpec:     cloud.NetworkSpec{Name: "", CIDR: "10.0.0.0"},
		OutOfBandDelete: policy,
		Options:         []ensure.Option{ensure.WithTags(map[string]string{"capkit.io/cluster": "default/demo"})},
	}
}

func TestEnsureScenariosPassForACorrectResource(t *testing.T) {
	t.Run("memcloud refuses reused tokens", func(t *testing.T) {
		RunScenarios(t, networkUnderTest(networks{}, true, ReportTerminal))
	})
	t.Run("resource recreates after out-of-band delete", func(t *testing.T) {
		RunScenarios(t, networkUnderTest(networks{recreate: true}, true, Recreate))
	})
	t.Run("without cloud hooks", func(t *testing.T) {
		RunScenarios(t, networkUnderTest(networks{}, false, ReportTerminal))
	})
}

// scenarioErrors runs, on a fresh fixture each, the scenarios that r's fixture can run, and returns the
// error of each by name, and the names of those not run.
func scenarioErrors[S, O any](t *testing.T, r ResourceUnderTest[S, O]) (map[string]error, []string) {
	run, hooks, others := plan(ensureScenarios[S, O](), r.New(t))
	out := map[string]error{}
	for _, sc := range run {
		out[sc.name] = sc.run(t.Context(), newHarness(r, r.New(t)))
	}
	return out, names(slices.Concat(hooks, others))
}

func names[S, O any](scenarios []ensureScenario[S, O]) []string {
	out := make([]string, 0, len(scenarios))
	for _, sc := range scenarios {
		out = append(out, sc.name)
	}
	return out
}

// assertOutcomes checks that the scenarios not run are exactly wantNotRun, that all others ran, and that
// exactly those in failing failed, each with its message part.
func assertOutcomes[S, O any](t *testing.T, r ResourceUnderTest[S, O], wantNotRun []string, failing map[string]string) {
	t.Helper()
	got, notRun := scenarioErrors(t, r)
	assert.ElementsMatch(t, wantNotRun, notRun, "scenarios not run")
	require.Len(t, got, len(ensureScenarios[S, O]())-len(wantNotRun), "scenarios run")
	for name := range failing {
		assert.Contains(t, got, name, "a scenario that must fail was not run")
	}
	for name, err := range got {
		want, ok := failing[name]
		if !ok {
			assert.NoError(t, err, name)
			continue
		}
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), want, name)
		}
	}
}

// The scenarios that a fixture without LagSearch, a Resource that is not a ensure.Updater, and a fixture
// without MakePending cannot run.
var (
	lagging = []string{"NoDuplicateAfterCrashBeforeRecordWithSearchLag", "NoDuplicateAfterLostCreateResponseWithSearchLag"}
	updates = []string{"NoUpdateWhenUpToDate", "UpdatesDriftOnce", "UpdateFailureIsRetried", "OutOfBandChangeDuringUpdate"}
	pending = []string{"WaitsWhilePending"}
)

// The scenarios that apply only to an asynchronous cloud, to one without idempotent creates or an immediate
// search, and to one with idempotent creates.
var (
	asynchronous = []string{"AsyncCreateHoldsNoWorker", "NoDuplicateAfterCrashBeforeRecordOfOperation", "NoLeakWhenDeletedDuringAsyncCreate", "CreatesAgainAfterFailedOperation"}
	tokenless    = []string{"NoSecondCreateWhileSearchLags"}
	idempotency  = []string{"AdoptsThroughIdempotencyAfterCrash"}
)

func TestEnsureScenariosCatchBugs(t *testing.T) {
	tests := []struct {
		name   string
		res    networks
		policy OutOfBandDelete
		// failing are the scenarios that must fail, with a part of their message.
		failing map[string]string
	}{
		{
			name: "create ignores the idempotency token", res: networks{bugNoToken: true}, policy: Recreate,
			failing: map[string]string{
				"NoDuplicateAfterCrashBeforeRecordWithSearchLag":  "a duplicate was created",
				"NoDuplicateAfterLostCreateResponseWithSearchLag": "a duplicate was created",
			},
		},
		{
			name: "search by tags finds nothing", res: networks{bugFindIgnoresTags: true}, policy: ReportTerminal,
			failing: map[string]string{
				"CreatesWhenAbsent":              "Create must put the tags on the resource",
				"AdoptsAfterStatusLoss":          "FindByTags must find the resource",
				"DeleteRemovesUntrackedResource": "want 0",
				// after the crash no search finds it, and the token answers with a resource reported as created
				"AdoptsThroughIdempotencyAfterCrash": "want action \"Adopted\"",
			},
		},
		{
			name: "create drops the tags", res: networks{bugNoTags: true}, policy: ReportTerminal,
			failing: map[string]string{
				"CreatesWhenAbsent":              "Create must put the tags on the resource",
				"AdoptsAfterStatusLoss":          "FindByTags must find the resource",
				"DeleteRemovesUntrackedResource": "want 0",
				// after the crash no search finds it, and the token answers with a resource reported as created
				"AdoptsThroughIdempotencyAfterCrash": "want action \"Adopted\"",
			},
		},
		{
			name: "delete fails on NotFound", res: networks{bugDeleteNotFound: true}, policy: ReportTerminal,
			failing: map[string]string{"DeleteIsIdempotent": "NotFound must be a success"},
		},
		{
			name: "validate accepts everything", res: networks{bugValidateAccepts: true}, policy: ReportTerminal,
			failing: map[string]string{"RejectsInvalidParameters": "called the cloud"},
		},
		{
			name: "get reports NotFound as an error", res: networks{bugGetNotFoundError: true}, policy: ReportTerminal,
			failing: map[string]string{
				"HandlesOutOfBandDeletion": "a resource that is gone is not an error",
				"DeleteIsIdempotent":       "EnsureDeleted failed",
				// the delete of a resource gone after its first delete fails
				"DeleteRemovesUntrackedResource": "EnsureDeleted failed",
			},
		},
		{
			name: "lost responses are terminal", res: networks{bugTerminalAlways: true}, policy: ReportTerminal,
			failing: map[string]string{
				"NoDuplicateAfterLostCreateResponse":              "want an error that is retried",
				"NoDuplicateAfterLostCreateResponseWithSearchLag": "want an error that is retried",
			},
		},
		{
			name: "policy says recreate but the cloud refuses", res: networks{}, policy: Recreate,
			failing: map[string]string{"HandlesOutOfBandDeletion": "set OutOfBandDelete: ReportTerminal"},
		},
		{
			name: "policy says terminal but the resource recreates", res: networks{recreate: true}, policy: ReportTerminal,
			failing: map[string]string{"HandlesOutOfBandDeletion": "want a terminal error"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertOutcomes(t, networkUnderTest(tc.res, true, tc.policy), slices.Concat(updates, pending, asynchronous, tokenless), tc.failing)
		})
	}
}

func TestEnsureScenarioLostResponseWithoutHook(t *testing.T) {
	// Without FailNextCreateAfterChange the scenario wraps Create: the resource is created, the error returned.
	r := networkUnderTest(networks{}, false, ReportTerminal)
	f := r.New(t)
	require.NoError(t, lostCreateResponse[cloud.NetworkSpec, *cloud.Network](false)(t.Context(), newHarness(r, f)))
	assert.Equal(t, 1, f.Count())
}

func TestValidateFixture(t *testing.T) {
	full := networkFixture(t, networks{}, false)
	tests := []struct {
		name  string
		edit  func(f *CloudFixture[cloud.NetworkSpec, *cloud.Network])
		field string
	}{
		{"resource", func(f *CloudFixture[cloud.NetworkSpec, *cloud.Network]) { f.Resource = nil }, "Resource"},
		{"count", func(f *CloudFixture[cloud.NetworkSpec, *cloud.Network]) { f.Count = nil }, "Count"},
		{"delete", func(f *CloudFixture[cloud.NetworkSpec, *cloud.Network]) { f.DeleteOutOfBand = nil }, "DeleteOutOfBand"},
	}
	require.NoError(t, validateFixture(full))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := full
			tc.edit(&f)
			err := validateFixture(f)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.field)
		})
	}
	assert.Equal(t, "Recreate", Recreate.String())
	assert.Equal(t, "ReportTerminal", ReportTerminal.String())
}
