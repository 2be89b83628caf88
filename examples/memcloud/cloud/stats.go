package cloud

import "maps"

// Stats counts API calls and their effects since the cloud was created or since the last
// ResetCounters. Inspection methods (Count, List, Report, ...) are not counted.
type Stats struct {
	// Calls counts every API call by operation, failed ones included (refused for their
	// credentials or throttled too). Mutations, Reads and Total count them alike.
	Calls map[Op]int
	// Mutations is the number of mutating calls (create, delete, update, scale, resize, tag,
	// register, deregister).
	Mutations int
	// Reads is the number of Get and Find calls.
	Reads int
	// Faults is the number of injected faults returned to callers.
	Faults int
	// Created counts the resources created, by kind. A create that replays an idempotency
	// token creates nothing and is not counted here. The instances started by an instance
	// group count as instances.
	Created map[Kind]int
	// Deleted counts the resources deleted, by kind, the instances deleted with or scaled out
	// of an instance group included.
	Deleted map[Kind]int
	// Updated counts the resources changed in place, by kind: security groups by their rules,
	// instance groups by their user data and by scales that start or delete instances or change
	// the size, instances by resizes and tag changes. An update that changes nothing is not
	// counted here.
	Updated map[Kind]int
	// ByAccount counts the API calls admitted with the valid credentials of each account, by
	// account name, failed ones included: a test asserts that no call was made for an account
	// with ByAccount[name] == 0. Calls without credentials (a cloud without accounts) are not
	// counted here. Throttled calls are: their credentials were valid.
	ByAccount map[string]int
	// Unauthorized is the number of API calls refused for their credentials (ErrUnauthorized)
	// before doing anything. They are counted in Calls too, and in no account. (A create
	// admitted before its account was deleted, then refused, is counted in ByAccount only.)
	Unauthorized int
	// Throttled is the number of API calls refused by the rate limit (ErrThrottled) before
	// doing anything. They are counted in Calls and ByAccount too.
	Throttled int
	// ThrottledByAccount counts the throttled calls of each account, by account name, as
	// ByAccount counts calls: calls without credentials are counted in Throttled only.
	ThrottledByAccount map[string]int
}

func newStats() Stats {
	return Stats{
		Calls: map[Op]int{}, Created: map[Kind]int{}, Deleted: map[Kind]int{}, Updated: map[Kind]int{},
		ByAccount: map[string]int{}, ThrottledByAccount: map[string]int{},
	}
}

func (s *Stats) count(op Op) {
	s.Calls[op]++
	if op.Mutating() {
		s.Mutations++
	} else {
		s.Reads++
	}
}

// Total returns the number of API calls.
func (s Stats) Total() int { return s.Mutations + s.Reads }

// Of returns the number of calls of verb on kind, for example s.Of(VerbCreate, KindNetwork).
func (s Stats) Of(v Verb, k Kind) int { return s.Calls[v.On(k)] }

func (s Stats) clone() Stats {
	s.Calls = maps.Clone(s.Calls)
	s.Created = maps.Clone(s.Created)
	s.Deleted = maps.Clone(s.Deleted)
	s.Updated = maps.Clone(s.Updated)
	s.ByAccount = maps.Clone(s.ByAccount)
	s.ThrottledByAccount = maps.Clone(s.ThrottledByAccount)
	return s
}

// Calls returns a copy of the call counters.
func (c *Cloud) Calls() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats.clone()
}

// ResetCounters sets every call counter to zero. Resources, tokens and TotalCreated are kept.
func (c *Cloud) ResetCounters() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats = newStats()
}
