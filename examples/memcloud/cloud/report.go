package cloud

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Owner tells which owner a resource belongs to, from its tags; ok is false for a resource
// without an owner. OwnerTagValue and OwnerTagKeyPrefix build the two usual conventions.
type Owner func(tags map[string]string) (owner string, ok bool)

// OwnerTagValue returns the Owner convention where one tag key holds the owner, for example
// "capkit.io/cluster" = "default/my-cluster": the owner is the tag's value.
func OwnerTagValue(key string) Owner {
	return func(tags map[string]string) (string, bool) {
		v, ok := tags[key]
		return v, ok
	}
}

// OwnerTagKeyPrefix returns the Owner convention where the owner is part of the tag key, for
// example "capkit.io/cluster-my-cluster" = "owned": the owner is the rest of the first key
// (in sorted order) that starts with prefix. When values are given, only tags with one of
// these values count (for example "owned" but not "shared").
func OwnerTagKeyPrefix(prefix string, values ...string) Owner {
	return func(tags map[string]string) (string, bool) {
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			if rest, ok := strings.CutPrefix(k, prefix); ok && (len(values) == 0 || slices.Contains(values, tags[k])) {
				return rest, true
			}
		}
		return "", false
	}
}

// Report lists the live resources grouped by owner.
type Report struct {
	// ByOwner holds each owner's resources in creation order.
	ByOwner map[string][]Resource
	// Unowned holds the resources without an owner, in creation order.
	Unowned []Resource
}

// Owners returns the owners that have resources, sorted.
func (r Report) Owners() []string { return slices.Sorted(maps.Keys(r.ByOwner)) }

// Total returns the number of resources in the report.
func (r Report) Total() int {
	n := len(r.Unowned)
	for _, rs := range r.ByOwner {
		n += len(rs)
	}
	return n
}

// String renders the report one resource a line, grouped by owner, with the account of the
// resources that have one; "no resources" when empty.
func (r Report) String() string {
	if r.Total() == 0 {
		return "no resources\n"
	}
	var b strings.Builder
	group := func(title string, rs []Resource) {
		fmt.Fprintf(&b, "%s: %d resource(s)\n", title, len(rs))
		for _, res := range rs {
			fmt.Fprintf(&b, "  %s %s %q%s\n", res.Kind, res.ID, res.Name, inAccount(res.Account))
		}
	}
	for _, o := range r.Owners() {
		group(fmt.Sprintf("owner %q", o), r.ByOwner[o])
	}
	if len(r.Unowned) > 0 {
		group("unowned", r.Unowned)
	}
	return b.String()
}

// inAccount returns ` in account "a"`, or "" for no account.
func inAccount(account string) string {
	if account == "" {
		return ""
	}
	return fmt.Sprintf(" in account %q", account)
}

// Report groups the live resources of every account by owner. With a nil owner every
// resource is unowned. Resources of two accounts with the same owner are in the same group:
// Resource.Account tells them apart.
func (c *Cloud) Report(owner Owner) Report {
	r := Report{ByOwner: map[string][]Resource{}}
	for _, res := range c.All() {
		if o, ok := ownerOf(owner, res); ok {
			r.ByOwner[o] = append(r.ByOwner[o], res)
		} else {
			r.Unowned = append(r.Unowned, res)
		}
	}
	return r
}

// Leaks returns the live resources of one owner, in creation order: after a cluster is
// deleted, anything listed here leaked.
func (c *Cloud) Leaks(owner Owner, value string) []Resource {
	return c.Report(owner).ByOwner[value]
}

func ownerOf(owner Owner, res Resource) (string, bool) {
	if owner == nil {
		return "", false
	}
	return owner(res.Tags)
}

// Duplicate is a group of live resources of the same kind, account, owner and role: all but
// one of them are duplicates.
type Duplicate struct {
	// Kind is the kind of the resources.
	Kind Kind
	// Owner is the owner they share ("" when Duplicates was given a nil Owner).
	Owner string
	// Role is the role they share: the role tag's value, or the name.
	Role string
	// IDs are the resources' IDs in creation order.
	IDs []string
	// Account is the account that owns them ("" for resources created without credentials).
	Account string
}

// String renders the group, for example `2 Network with owner "c1" and role "vpc": net-1, net-2`,
// with ` in account "a"` after the role for resources of an account.
func (d Duplicate) String() string {
	return fmt.Sprintf("%d %s with owner %q and role %q%s: %s", len(d.IDs), d.Kind, d.Owner, d.Role, inAccount(d.Account), strings.Join(d.IDs, ", "))
}

// Duplicates returns the groups of two or more live resources of the same kind and account that
// share an owner and a role, sorted by kind (in Kinds order), account, owner and role: the
// resources of two accounts are never duplicates of each other. The role is the value of
// the tag roleTagKey, or the resource's name when roleTagKey is "". Owned resources without
// the role tag are ignored. With a nil owner, resources are grouped by kind and role only.
// Tests assert that it returns nothing after any sequence of faults and retries. The instances
// of an instance group are ignored: they share their group's tags by design (two groups with
// the same owner and role are duplicates).
func (c *Cloud) Duplicates(owner Owner, roleTagKey string) []Duplicate {
	type key struct {
		kind                 Kind
		account, owner, role string
	}
	groups := map[key][]string{}
	for _, res := range c.list(func(r *record) bool { return r.group == "" }) {
		o, ok := ownerOf(owner, res)
		if !ok && owner != nil {
			continue
		}
		role, ok := res.Name, true
		if roleTagKey != "" {
			role, ok = res.Tags[roleTagKey]
		}
		if ok {
			k := key{res.Kind, res.Account, o, role}
			groups[k] = append(groups[k], res.ID)
		}
	}
	var dups []Duplicate
	for k, ids := range groups {
		if len(ids) > 1 {
			dups = append(dups, Duplicate{Kind: k.kind, Account: k.account, Owner: k.owner, Role: k.role, IDs: ids})
		}
	}
	slices.SortFunc(dups, func(a, b Duplicate) int {
		return cmp.Or(cmp.Compare(kindIndex(a.Kind), kindIndex(b.Kind)), cmp.Compare(a.Account, b.Account),
			cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Role, b.Role))
	})
	return dups
}

func kindIndex(k Kind) int { return slices.Index(Kinds(), k) }
