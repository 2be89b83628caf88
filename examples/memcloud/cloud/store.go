package cloud

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// record is the internal state of one live resource. It is guarded by Cloud.mu.
type record struct {
	kind        Kind
	account     string // the owner's name; "" when created without credentials
	seq         uint64 // creation order
	obj         object
	parent      string
	token       string
	visibleFrom uint64    // first value of findSeq[kind] at which Find sees the resource
	readyAt     time.Time // when its create operation ends and it exists for the API; zero: at once
	listedAt    time.Time // when Find lists it (WithSearchLag); zero: at once

	prefix      netip.Prefix // networks and subnets
	addrs       *addrPool    // subnets: the private addresses of their instances
	ip          netip.Addr   // instances
	staticIPs   []netip.Addr // instances: the static addresses, in Cloud.staticIPs
	userData    []byte       // instances; instance groups: the data of new instances
	pendingGets int          // instances: GetInstance calls left before running
	group       string       // instances of a group: the group's ID
	members     []string     // instance groups: IDs of the live instances, oldest first
	started     int          // instance groups: instances started so far, to name the next
}

func (r *record) id() string { return r.obj.meta().ID }

func (r *record) view() Resource {
	return Resource{Kind: r.kind, Meta: r.obj.meta().cloneMeta(), ParentID: r.parent, Account: r.account}
}

// tokenKey is an idempotency token of one kind in one account.
type tokenKey struct {
	account string
	kind    Kind
	token   string
}

// tokenEntry remembers what an idempotency token created.
type tokenEntry struct {
	id          string // "" when its operation fails and creates nothing
	op          string // the operation of an asynchronous create; "" for a synchronous one
	fingerprint string
	deleted     bool
}

// createReq is a create request as seen by the kind-independent engine.
type createReq struct {
	kind        Kind
	name        string
	tags        map[string]string
	token       string
	fingerprint string
	// build validates the kind-specific parameters against the current state as seen by
	// account (see Cloud.visibleLocked) and returns the new record. It runs with Cloud.mu held
	// and must not change any state when it fails.
	build func(m Meta, account string) (*record, error)
	// populate, when not nil, runs with Cloud.mu held once the new record is stored: instance
	// groups start their instances there. It cannot fail: build checked everything it needs.
	populate func(rec *record)
}

func (c *Cloud) create(ctx context.Context, req createReq) (object, error) {
	obj, err := c.doCreate(ctx, req)
	if _, accepted := Accepted(err); accepted {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("cannot create %s %q: %w", req.kind.noun(), req.name, err)
	}
	return obj, nil
}

func (c *Cloud) doCreate(ctx context.Context, req createReq) (object, error) {
	op := VerbCreate.On(req.kind)
	k, err := c.begin(ctx, op)
	if err != nil {
		return nil, err
	}
	if err := validName(req.name); err != nil {
		return nil, err
	}
	if err := validTags("tags", req.tags); err != nil {
		return nil, err
	}
	if c.noTokens {
		req.token = ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.admitLocked(op, k); err != nil {
		return nil, err
	}
	rec, running, err := c.replayLocked(k.owner(), req)
	if err != nil {
		return nil, err
	}
	if rec == nil && running == nil {
		if rec, running, err = c.startLocked(k, req); err != nil {
			return nil, err
		}
	}
	if k.after {
		return nil, c.faultLocked(op)
	}
	if running != nil {
		return nil, &AcceptedError{Op: op, Operation: running.id}
	}
	return c.objectLocked(rec), nil
}

// replayLocked returns what the request's token made earlier in account: the resource, or the
// operation that still creates it; both nil when the token is new there, or its operation failed
// (a failed operation does not use up its token).
func (c *Cloud) replayLocked(account string, req createReq) (*record, *operation, error) {
	if req.token == "" {
		return nil, nil, nil
	}
	key := tokenKey{account, req.kind, req.token}
	e, ok := c.tokens[key]
	if !ok {
		return nil, nil, nil
	}
	var o *operation
	if e.op != "" {
		o = c.ops[e.op]
		if o.failed() && o.doneAt(c.now()) {
			delete(c.tokens, key)
			return nil, nil, nil
		}
	}
	made := fmt.Sprintf("%s %q", req.kind.noun(), e.id)
	if e.id == "" {
		made = fmt.Sprintf("operation %q", e.op)
	}
	switch {
	case e.deleted:
		return nil, nil, fmt.Errorf("%w: token %q created %s", ErrTokenReused, req.token, made)
	case e.fingerprint != req.fingerprint:
		return nil, nil, fmt.Errorf("%w: token %q created %s", ErrTokenMismatch, req.token, made)
	case o != nil && !o.doneAt(c.now()):
		return nil, o, nil
	}
	return c.records[e.id], nil, nil
}

// insertLocked creates the resource of req in account; it exists for the API from readyAt (zero:
// at once), when its create operation ends.
func (c *Cloud) insertLocked(account string, req createReq, readyAt time.Time) (*record, error) {
	if err := c.checkQuotaLocked(account, req.kind, 1); err != nil {
		return nil, err
	}
	m := Meta{ID: c.newIDLocked(req.kind), Name: req.name, Tags: cloneTags(req.tags), CreatedAt: c.now()}
	rec, err := req.build(m, account)
	if err != nil {
		return nil, err
	}
	rec.kind, rec.token, rec.account = req.kind, req.token, account
	c.scheduleLocked(rec, readyAt)
	c.addLocked(rec)
	if req.token != "" {
		c.tokens[tokenKey{account, req.kind, req.token}] = &tokenEntry{id: m.ID, fingerprint: req.fingerprint}
	}
	if req.populate != nil {
		req.populate(rec)
	}
	return rec, nil
}

// checkQuotaLocked fails with ErrQuotaExceeded when n more live resources of kind in account
// would exceed its quota.
func (c *Cloud) checkQuotaLocked(account string, kind Kind, n int) error {
	q, ok := c.quotas[kind]
	live := c.liveIn[scope{account, kind}]
	if !ok || live+n <= q {
		return nil
	}
	err := fmt.Errorf("%w: %d of %d %s resources in use", ErrQuotaExceeded, live, q, kind)
	if n > 1 {
		err = fmt.Errorf("%w, %d more requested", err, n)
	}
	return err
}

// addLocked stores a new record of rec.kind in rec.account and counts its creation.
func (c *Cloud) addLocked(rec *record) {
	c.seq++
	rec.seq = c.seq
	rec.visibleFrom = c.findSeq[scope{rec.account, rec.kind}] + uint64(c.faults.SearchLag) + 1
	c.records[rec.id()] = rec
	c.index.add(rec)
	c.live[rec.kind]++
	c.liveIn[scope{rec.account, rec.kind}]++
	c.totalCreated++
	c.stats.Created[rec.kind]++
}

func (c *Cloud) newIDLocked(kind Kind) string {
	for {
		id := fmt.Sprintf("%s%08x", kind.Prefix(), c.ids.Uint32())
		if !c.issued[id] {
			c.issued[id] = true
			return id
		}
	}
}

func (c *Cloud) get(ctx context.Context, kind Kind, id string) (object, error) {
	obj, err := c.doGet(ctx, kind, id)
	if err != nil {
		return nil, fmt.Errorf("cannot get %s %q: %w", kind.noun(), id, err)
	}
	return obj, nil
}

func (c *Cloud) doGet(ctx context.Context, kind Kind, id string) (object, error) {
	return onRecord(ctx, c, VerbGet.On(kind), "id", id, nil, func(_ call, rec *record) (object, error) {
		switch rec.kind {
		case KindInstance:
			advanceInstance(rec)
		case KindInstanceGroup:
			for _, m := range rec.members {
				advanceInstance(c.records[m])
			}
		}
		return c.objectLocked(rec), nil
	})
}

// onRecord makes a call of op on the resource id (of op's kind, visible to the caller), named idField in
// errors: it begins the call (credentials, counters, rate limit, a fault before the change), checks the ID,
// then, with c.mu held, checks the other arguments with valid (nil: none), finds the record and runs change
// on it. A fault after the change comes once change succeeded; otherwise change's result is the call's.
func onRecord[T any](ctx context.Context, c *Cloud, op Op, idField, id string, valid func() error, change func(k call, rec *record) (T, error)) (T, error) {
	var zero T
	k, err := c.begin(ctx, op)
	if err != nil {
		return zero, err
	}
	if err := checkID(idField, op.Kind, id); err != nil {
		return zero, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if valid != nil {
		if err := valid(); err != nil {
			return zero, err
		}
	}
	rec, err := c.visibleLocked(k.owner(), op.Kind, id)
	if err != nil {
		return zero, err
	}
	out, err := change(k, rec)
	if err != nil {
		return zero, err
	}
	if k.after {
		return zero, c.faultLocked(op)
	}
	return out, nil
}

// objectLocked returns a copy of rec's resource for a response. An instance group's copy lists
// its live instances.
func (c *Cloud) objectLocked(rec *record) object {
	obj := rec.obj.clone()
	if g, ok := obj.(*InstanceGroup); ok {
		g.Instances = make([]GroupInstance, 0, len(rec.members))
		for _, id := range rec.members {
			inst := c.records[id].obj.(*Instance)
			g.Instances = append(g.Instances, GroupInstance{ID: id, PrivateIP: inst.PrivateIP, State: inst.State})
		}
	}
	return obj
}

// lookupLocked returns the live record of kind with the given ID, in any account, or
// ErrNotFound. It is the god view of the inspection methods; API calls use visibleLocked.
func (c *Cloud) lookupLocked(kind Kind, id string) (*record, error) {
	rec, ok := c.records[id]
	if !ok || rec.kind != kind {
		return nil, ErrNotFound
	}
	return rec, nil
}

// visibleLocked returns the live record of kind with the given ID that account owns, or
// ErrNotFound: a resource of another account, or whose create operation runs, does not exist for
// the caller.
func (c *Cloud) visibleLocked(account string, kind Kind, id string) (*record, error) {
	rec, err := c.lookupLocked(kind, id)
	if err != nil || rec.account != account || !c.existsLocked(rec) {
		return nil, ErrNotFound
	}
	return rec, nil
}

// parentLocked returns the live record of account a request refers to in field, or
// ErrInvalidParameter.
func (c *Cloud) parentLocked(account, field string, kind Kind, id string) (*record, error) {
	if err := checkID(field, kind, id); err != nil {
		return nil, err
	}
	rec, err := c.visibleLocked(account, kind, id)
	if err != nil {
		return nil, invalid(field, id, "does not exist")
	}
	return rec, nil
}

func (c *Cloud) delete(ctx context.Context, kind Kind, id string) error {
	if err := c.doDelete(ctx, kind, id); err != nil {
		return fmt.Errorf("cannot delete %s %q: %w", kind.noun(), id, err)
	}
	return nil
}

func (c *Cloud) doDelete(ctx context.Context, kind Kind, id string) error {
	_, err := onRecord(ctx, c, VerbDelete.On(kind), "id", id, nil, func(_ call, rec *record) (struct{}, error) {
		if deps := c.dependentsLocked(rec); len(deps) > 0 {
			return struct{}{}, fmt.Errorf("%w: still used by %s", ErrDependencyViolation, describe(deps))
		}
		c.removeLocked(rec)
		return struct{}{}, nil
	})
	return err
}

// dependentsLocked returns the live resources that prevent deleting rec, in creation order. An
// instance group's instances do not prevent deleting it: they are deleted with it.
func (c *Cloud) dependentsLocked(rec *record) []*record {
	var deps []*record
	for r := range c.index.referrers[rec.id()] {
		switch {
		case rec.kind == KindNetwork && r.parent == rec.id(),
			rec.kind == KindSubnet && (r.kind == KindInstance || r.kind == KindInstanceGroup) && r.parent == rec.id(),
			rec.kind == KindSecurityGroup && slices.Contains(securityGroupsOf(r), rec.id()):
			deps = append(deps, r)
		}
	}
	slices.SortFunc(deps, bySeq)
	return deps
}

// securityGroupsOf returns the IDs of the security groups an instance or an instance group uses.
func securityGroupsOf(r *record) []string {
	switch o := r.obj.(type) {
	case *Instance:
		return o.SecurityGroupIDs
	case *InstanceGroup:
		return o.SecurityGroupIDs
	}
	return nil
}

func bySeq(a, b *record) int { return cmp.Compare(a.seq, b.seq) }

// describe names up to three resources: `subnet "subnet-1", instance "i-2" and 3 more`.
func describe(recs []*record) string {
	const shown = 3
	parts := make([]string, 0, shown)
	for _, r := range recs[:min(len(recs), shown)] {
		parts = append(parts, fmt.Sprintf("%s %q", r.kind.noun(), r.id()))
	}
	s := strings.Join(parts, ", ")
	if len(recs) > shown {
		s += fmt.Sprintf(" and %d more", len(recs)-shown)
	}
	return s
}

// removeLocked deletes rec: an instance group's instances first, newest first.
func (c *Cloud) removeLocked(rec *record) {
	c.shrinkGroupLocked(rec, len(rec.members))
	id := rec.id()
	delete(c.records, id)
	c.index.remove(rec)
	c.live[rec.kind]--
	c.liveIn[scope{rec.account, rec.kind}]--
	c.stats.Deleted[rec.kind]++
	if rec.token != "" {
		c.tokens[tokenKey{rec.account, rec.kind, rec.token}].deleted = true
	}
	if rec.kind != KindInstance {
		return
	}
	if subnet, ok := c.records[rec.parent]; ok {
		subnet.addrs.release(rec.ip)
	}
	for _, ip := range rec.staticIPs {
		delete(c.staticIPs, ip)
	}
	if group, ok := c.records[rec.group]; ok {
		group.members = slices.DeleteFunc(group.members, func(m string) bool { return m == id })
	}
	for lb := range c.index.targetOf[id] {
		c.deregisterLocked(lb, id)
	}
}

// setTagsLocked replaces the tags of rec, which keeps the map it is given.
func (c *Cloud) setTagsLocked(rec *record, tags map[string]string) {
	c.index.dropTags(rec)
	rec.obj.meta().Tags = tags
	c.index.putTags(rec)
}

func (c *Cloud) find(ctx context.Context, kind Kind, tags map[string]string) ([]object, error) {
	objs, err := c.doFind(ctx, kind, tags)
	if err != nil {
		return nil, fmt.Errorf("cannot find %ss with tags %q: %w", kind.noun(), formatTags(tags), err)
	}
	return objs, nil
}

func (c *Cloud) doFind(ctx context.Context, kind Kind, tags map[string]string) ([]object, error) {
	k, err := c.begin(ctx, VerbFind.On(kind))
	if err != nil {
		return nil, err
	}
	if len(tags) == 0 {
		return nil, invalid("tags", "", "must not be empty: a search without tags would match every resource")
	}
	if err := validTags("tags", tags); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := scope{k.owner(), kind}
	c.findSeq[sc]++
	seq := c.findSeq[sc]
	var now time.Time // read only when a resource may not be listed yet
	if c.asyncCreates > 0 || c.searchLag > 0 {
		now = c.now()
	}
	var found []*record
	for r := range c.index.tagged(sc.account, kind, tags) {
		if r.visibleFrom <= seq && !now.Before(r.listedAt) && tagsMatch(r.obj.meta().Tags, tags) {
			found = append(found, r)
		}
	}
	slices.SortFunc(found, bySeq)
	objs := make([]object, 0, len(found))
	for _, r := range found {
		objs = append(objs, c.objectLocked(r))
	}
	return objs, nil
}

// tagsMatch reports whether have contains every key of want with the same value.
func tagsMatch(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// as converts the result of get or create to the resource type T.
func as[T any](obj object, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return any(obj).(*T), nil
}

// asList converts the result of find to a slice of the resource type T.
func asList[T any](objs []object, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		out = append(out, *any(o).(*T))
	}
	return out, nil
}
