package cloud

// recordIndex finds live records without walking them all, so that Find, Delete and
// CreateSubnet cost the same in a cloud of ten resources and in one of ten thousand. It is
// guarded by Cloud.mu and kept in step with Cloud.records: addLocked adds a record,
// removeLocked removes it, setTagsLocked re-indexes its tags and registerLocked and
// deregisterLocked change the targets of a load balancer.
type recordIndex struct {
	// byTag holds the records of each account and kind that carry each tag (key and value):
	// Find reads the set of the requested tag with the fewest records.
	byTag multiIndex[tagKey]
	// referrers holds, by ID, the records that refer to it as their parent or as one of their
	// security groups: the resources of a network, the instances and instance groups of a
	// subnet, the users of a security group.
	referrers multiIndex[string]
	// targetOf holds, by instance ID, the load balancers that have the instance among their
	// Targets: the reverse of LoadBalancer.Targets.
	targetOf multiIndex[string]
}

// tagKey is one tag of the resources of one kind in one account.
type tagKey struct {
	account    string
	kind       Kind
	key, value string
}

func newRecordIndex() recordIndex {
	return recordIndex{byTag: multiIndex[tagKey]{}, referrers: multiIndex[string]{}, targetOf: multiIndex[string]{}}
}

// add indexes a new record.
func (x recordIndex) add(r *record) {
	x.putTags(r)
	for _, id := range referencesOf(r) {
		x.referrers.put(id, r)
	}
	for _, t := range targetsOf(r) {
		x.targetOf.put(t, r)
	}
}

// remove forgets a deleted record. It leaves a deleted instance in the Targets of the load
// balancers it is registered with: removeLocked deregisters it.
func (x recordIndex) remove(r *record) {
	x.dropTags(r)
	for _, id := range referencesOf(r) {
		x.referrers.drop(id, r)
	}
	for _, t := range targetsOf(r) {
		x.targetOf.drop(t, r)
	}
}

func (x recordIndex) putTags(r *record) {
	for k, v := range r.obj.meta().Tags {
		x.byTag.put(tagKey{r.account, r.kind, k, v}, r)
	}
}

func (x recordIndex) dropTags(r *record) {
	for k, v := range r.obj.meta().Tags {
		x.byTag.drop(tagKey{r.account, r.kind, k, v}, r)
	}
}

// tagged returns the records of kind in account that carry one of tags, fewer than all of them
// in general: those of the tag that the fewest records carry, or none when a tag is carried by
// none. The caller still checks every tag.
func (x recordIndex) tagged(account string, kind Kind, tags map[string]string) map[*record]struct{} {
	var best map[*record]struct{}
	for k, v := range tags {
		s := x.byTag[tagKey{account, kind, k, v}]
		if len(s) == 0 {
			return nil
		}
		if best == nil || len(s) < len(best) {
			best = s
		}
	}
	return best
}

// referencesOf returns the IDs r refers to: its parent and its security groups.
func referencesOf(r *record) []string {
	sgs := securityGroupsOf(r)
	if r.parent == "" {
		return sgs
	}
	return append([]string{r.parent}, sgs...)
}

// targetsOf returns the targets of a load balancer, nil for any other resource.
func targetsOf(r *record) []string {
	if lb, ok := r.obj.(*LoadBalancer); ok {
		return lb.Targets
	}
	return nil
}

// multiIndex maps a key to a set of records. Keys without records are deleted, so that an
// index does not grow with the resources deleted since New.
type multiIndex[K comparable] map[K]map[*record]struct{}

func (m multiIndex[K]) put(k K, r *record) {
	s, ok := m[k]
	if !ok {
		s = map[*record]struct{}{}
		m[k] = s
	}
	s[r] = struct{}{}
}

func (m multiIndex[K]) drop(k K, r *record) {
	s, ok := m[k]
	if !ok {
		return
	}
	delete(s, r)
	if len(s) == 0 {
		delete(m, k)
	}
}
