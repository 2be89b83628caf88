package ensure_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope/scopetest"
)

// declaredRow is one row of the table of declarations in docs/services-and-ensure.md.
type declaredRow struct {
	text     string
	declared ensure.Guarantees
	lag      time.Duration // how long the row's cloud takes to list a new resource, at its worst
	async    bool
	crash    string // what is left after a crash after the create call
	deleted  string // what is left after a delete during the create
	extra    int    // PatchNow per create besides the checkpoint of the ID
	waits    string // what waits up to D after a create whose outcome is unknown
}

// tableLag is the D of the table's rows that lag.
const tableLag = 2 * time.Minute

// declarationsTable reads the rows of the table of declarations.
func declarationsTable(t *testing.T) []declaredRow {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "services-and-ensure.md"))
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	var rows []declaredRow
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "| idempotency | search | create |"):
			in = true
			continue
		case !in || strings.HasPrefix(line, "|---"):
			continue
		case !strings.HasPrefix(line, "|"):
			return rows
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		require.Len(t, cells, 7, line)
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		row := declaredRow{text: strings.Join(cells[:3], ", "), crash: cells[3], deleted: cells[4], waits: cells[6]}
		row.extra, err = strconv.Atoi(cells[5])
		require.NoError(t, err, line)
		switch cells[0] {
		case "token":
			row.declared.Idempotency = ensure.IdempotentByToken
		case "name":
			row.declared.Idempotency = ensure.IdempotentByName
		case "none":
			row.declared.Idempotency = ensure.NotIdempotent
		case "nothing declared":
		default:
			t.Fatalf("unknown idempotency in %q", line)
		}
		switch cells[1] {
		case "immediate":
			row.declared.ImmediateSearch = true
		case "lags ≤ D":
			row.declared.SearchLag, row.lag = tableLag, tableLag
		case "D = 1 min":
			require.Equal(t, "nothing declared", cells[0], line)
			require.Equal(t, time.Minute, ensure.DefaultSearchLag, "the table names the default lag")
			row.lag = ensure.DefaultSearchLag
		default:
			t.Fatalf("unknown search in %q", line)
		}
		row.async = cells[2] == "operation"
		require.Contains(t, []string{"returns it", "operation"}, cells[2], line)
		rows = append(rows, row)
	}
	return rows
}

// tableVM is a resource of tableCloud.
type tableVM struct {
	id           string
	tags         map[string]string
	listed, made time.Time // the search lists it from listed on; its operation ends at made
}

// tableCloud keeps exactly what a row declares, at its worst: its search lists a resource only lag after the
// create call, an operation outlasts the lag, a repeated create makes a second resource unless the row declares
// a token or a name.
type tableCloud struct {
	row     declaredRow
	opTime  time.Duration // how long an operation runs; creates of a row that does not run them return the resource
	now     *time.Time
	vms     map[string]*tableVM
	order   []string          // IDs in creation order
	tokens  map[string]string // token (or the name derived from it) → ID
	crash   func()            // runs after a create made its resource: the manager dies before the checkpoint
	lostReq bool              // the next create makes nothing and fails, as a request lost on its way
}

func (c *tableCloud) resource() ensure.Resource[string, *tableVM] {
	return ensure.NewResource(ensure.ResourceFuncs[string, *tableVM]{
		Guarantees: c.row.declared,
		IDFunc:     func(v *tableVM) string { return v.id },
		GetFunc: func(_ context.Context, id string) (*tableVM, bool, error) {
			v, ok := c.vms[id]
			return v, ok, nil
		},
		FindByTagsFunc: func(_ context.Context, tags map[string]string) (*tableVM, bool, error) {
			for _, id := range c.order {
				if v, ok := c.vms[id]; ok && !c.now.Before(v.listed) && hasTags(v.tags, tags) {
					return v, true, nil
				}
			}
			return nil, false, nil
		},
		CreateFunc: func(_ context.Context, _ string, token string, tags map[string]string) (*tableVM, error) {
			if c.lostReq {
				c.lostReq = false
				return nil, errors.New("connection reset")
			}
			v, ok := c.vms[c.tokens[token]]
			if !ok {
				v = &tableVM{id: fmt.Sprintf("vm-%d", len(c.order)+1), tags: maps.Clone(tags), listed: c.now.Add(c.row.lag), made: c.now.Add(c.opTime)}
				c.vms[v.id], c.order = v, append(c.order, v.id)
				if c.row.declared.Idempotency == ensure.IdempotentByToken || c.row.declared.Idempotency == ensure.IdempotentByName {
					c.tokens[token] = v.id
				}
				if c.crash != nil {
					c.crash()
				}
			}
			if c.row.async {
				return nil, ensure.Accepted("op-" + v.id)
			}
			return v, nil
		},
		PollOperationFunc: func(_ context.Context, op string) (*tableVM, bool, error) {
			v, ok := c.vms[strings.TrimPrefix(op, "op-")]
			if !ok {
				return nil, false, fmt.Errorf("operation %q: its resource is gone: %w", op, ensure.ErrOperationFailed)
			}
			return v, !c.now.Before(v.made), nil
		},
		DeleteFunc: func(_ context.Context, id string) error { delete(c.vms, id); return nil },
	})
}

// tableRun is one scenario of a row: its cloud, its tracker and the clock both read.
type tableRun struct {
	t     *testing.T
	now   time.Time
	start time.Time
	cloud *tableCloud
	r     ensure.Resource[string, *tableVM]
	tr    *scopetest.Tracker
}

func newTableRun(t *testing.T, row declaredRow) *tableRun {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	run := &tableRun{t: t, now: start, start: start, tr: scopetest.NewTracker("owner1")}
	run.cloud = &tableCloud{row: row, now: &run.now, vms: map[string]*tableVM{}, tokens: map[string]string{}}
	if row.async {
		run.cloud.opTime = tableLag + time.Minute // outlasts every lag
	}
	run.r = run.cloud.resource()
	return run
}

func (r *tableRun) clock() ensure.Option { return ensure.WithClock(func() time.Time { return r.now }) }

func (r *tableRun) exists() (ensure.Result[*tableVM], error) {
	return ensure.Exists(r.t.Context(), r.tr, "vm", r.r, ensure.Given("image"), r.clock())
}

func (r *tableRun) deleted() (bool, error) {
	res, err := ensure.Deleted(r.t.Context(), r.tr, "vm", r.r, r.clock())
	return res.Done, err
}

// until calls done every 10 s of the clock until it reports true, and returns how long that took.
func (r *tableRun) until(done func() (bool, error)) time.Duration {
	r.t.Helper()
	from := r.now
	for range 100 {
		ok, err := done()
		require.NoError(r.t, err)
		if ok {
			return r.now.Sub(from)
		}
		r.now = r.now.Add(10 * time.Second)
	}
	r.t.Fatalf("not done after %s", r.now.Sub(from))
	return 0
}

func (r *tableRun) existsDone() (bool, error) {
	res, err := r.exists()
	return res.Result.Done, err
}

// crashAfterCreate runs Exists until it called the cloud's create, makes the write after that call fail, and
// returns as the manager that restarts sees it.
func (r *tableRun) crashAfterCreate() {
	r.t.Helper()
	crash := errors.New("the manager died")
	r.cloud.crash = func() { r.tr.FailNextPatch(crash) }
	_, err := r.exists()
	require.ErrorIs(r.t, err, crash)
	r.cloud.crash = nil
	r.tr = r.tr.Restart()
	r.now = r.now.Add(10 * time.Second)
}

// lostRequest runs an Exists whose create made nothing and failed, as one whose outcome is unknown.
func (r *tableRun) lostRequest() {
	r.t.Helper()
	r.cloud.lostReq = true
	_, err := r.exists()
	require.Error(r.t, err)
	r.now = r.now.Add(10 * time.Second)
}

// TestDeclarationsTable: each row of the table of declarations in docs/services-and-ensure.md holds against a cloud
// that keeps exactly what the row declares, at its worst: what a crash after the create call and a delete during the
// create leave, how many PatchNow a create costs besides its checkpoint, and what waits up to D after a create whose
// outcome is unknown.
func TestDeclarationsTable(t *testing.T) {
	rows := declarationsTable(t)
	require.Len(t, rows, 14, "3 idempotencies × 2 searches × 2 creates, and nothing declared × 2 creates")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "(docs/services-and-ensure.md#what-the-cloud-guarantees)", "the README's promises link the table")
	for _, row := range rows {
		t.Run(row.text, func(t *testing.T) {
			run := newTableRun(t, row)
			run.until(run.existsDone)
			assert.Len(t, run.cloud.vms, 1)
			assert.Equal(t, row.extra, run.tr.Writes()-1, "PatchNow per create besides the checkpoint")

			run = newTableRun(t, row)
			run.crashAfterCreate()
			run.until(run.existsDone)
			require.True(t, strings.HasPrefix(row.crash, "1 resource"), "the table says %q", row.crash)
			assert.Len(t, run.cloud.vms, 1, "after a crash after the create call")

			run = newTableRun(t, row)
			run.crashAfterCreate()
			run.until(run.deleted)
			require.True(t, strings.HasPrefix(row.deleted, "nothing left"), "the table says %q", row.deleted)
			assert.Empty(t, run.cloud.vms, "after a delete during the create")

			run = newTableRun(t, row)
			run.lostRequest()
			_, err := run.exists()
			require.NoError(t, err)
			assert.Equal(t, strings.Contains(row.waits, "a second create"), len(run.cloud.vms) == 0, "a second create waits: %q", row.waits)
			took := run.until(run.existsDone)
			assert.LessOrEqual(t, took, row.lag+run.cloud.opTime, "created and done within D (and the operation)")

			run = newTableRun(t, row)
			run.lostRequest()
			took = run.until(run.deleted)
			assert.Equal(t, strings.Contains(row.waits, "a delete"), took > 0, "a delete waits: %q", row.waits)
			assert.LessOrEqual(t, took, row.lag, "a delete waits up to D")
			assert.Contains(t, []string{"nothing", "a delete", "a second create, a delete"}, row.waits)
		})
	}
}
