package cloud_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// scene is a cloud holding instances "a", "b" and "c" and a network "n" of the same cluster,
// with IDs by name for the tests of Find.
type scene struct {
	env
	ids map[string]string
}

func newScene(t *testing.T, opts ...cloud.Option) *scene {
	t.Helper()
	s := &scene{env: newEnv(t, opts...), ids: map[string]string{}}
	s.create(t, "a", map[string]string{"cluster": "c1", "role": "cp"})
	s.create(t, "b", map[string]string{"cluster": "c1", "role": "worker"})
	s.create(t, "c", map[string]string{"cluster": "c2", "role": "worker"})
	n, err := s.c.CreateNetwork(t.Context(), cloud.NetworkSpec{Name: "n", CIDR: "10.1.0.0/16", Tags: map[string]string{"cluster": "c1", "net": "yes"}})
	require.NoError(t, err)
	s.ids["n"] = n.ID
	return s
}

func (s *scene) create(t *testing.T, name string, tags map[string]string) {
	t.Helper()
	inst, err := s.c.CreateInstance(t.Context(), cloud.InstanceSpec{Name: name, SubnetID: s.subnet.ID, Image: "img", Flavor: "small", Tags: tags})
	require.NoError(t, err)
	s.ids[name] = inst.ID
}

func (s *scene) tag(t *testing.T, name string, set map[string]string, remove ...string) {
	t.Helper()
	_, err := s.c.TagInstance(t.Context(), s.ids[name], set, remove)
	require.NoError(t, err)
}

func (s *scene) delete(t *testing.T, name string) {
	t.Helper()
	require.NoError(t, s.c.DeleteInstance(t.Context(), s.ids[name]))
}

// names returns the IDs of the named resources, in the order given.
func (s *scene) names(names ...string) []string {
	out := []string{}
	for _, n := range names {
		out = append(out, s.ids[n])
	}
	return out
}

func TestFindSeesCreatesRetagsAndDeletes(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		do   func(t *testing.T, s *scene)
		tags map[string]string
		want []string // names, in creation order
	}{
		{"one tag", nil, map[string]string{"cluster": "c1"}, []string{"a", "b"}},
		{"two tags", nil, map[string]string{"cluster": "c1", "role": "worker"}, []string{"b"}},
		{"a tag nobody carries", nil, map[string]string{"cluster": "c1", "role": "none"}, []string{}},
		{"the tags of another kind", nil, map[string]string{"net": "yes"}, []string{}},
		{"created after", func(t *testing.T, s *scene) { s.create(t, "d", map[string]string{"cluster": "c1"}) },
			map[string]string{"cluster": "c1"}, []string{"a", "b", "d"}},
		{"retagged: new value", func(t *testing.T, s *scene) { s.tag(t, "a", map[string]string{"role": "worker"}) },
			map[string]string{"role": "worker"}, []string{"a", "b", "c"}},
		{"retagged: old value", func(t *testing.T, s *scene) { s.tag(t, "a", map[string]string{"role": "worker"}) },
			map[string]string{"role": "cp"}, []string{}},
		{"retagged: key removed", func(t *testing.T, s *scene) { s.tag(t, "b", nil, "role") },
			map[string]string{"cluster": "c1", "role": "worker"}, []string{}},
		{"retagged: key removed, other tags kept", func(t *testing.T, s *scene) { s.tag(t, "b", nil, "role") },
			map[string]string{"cluster": "c1"}, []string{"a", "b"}},
		{"retagged: key added", func(t *testing.T, s *scene) { s.tag(t, "c", map[string]string{"new": "1"}) },
			map[string]string{"new": "1", "cluster": "c2"}, []string{"c"}},
		{"retagged to the same tags", func(t *testing.T, s *scene) { s.tag(t, "a", map[string]string{"role": "cp"}) },
			map[string]string{"role": "cp"}, []string{"a"}},
		{"retagged twice", func(t *testing.T, s *scene) {
			s.tag(t, "a", map[string]string{"role": "x"})
			s.tag(t, "a", map[string]string{"role": "cp"})
		}, map[string]string{"role": "cp"}, []string{"a"}},
		{"retag lost after the change", func(t *testing.T, s *scene) {
			require.NoError(t, s.c.FailNext(cloud.VerbTag.On(cloud.KindInstance), cloud.AfterChange))
			_, err := s.c.TagInstance(ctx, s.ids["a"], map[string]string{"role": "x"}, nil)
			require.ErrorIs(t, err, cloud.ErrInjected)
		}, map[string]string{"role": "x"}, []string{"a"}},
		{"retag failed before the change", func(t *testing.T, s *scene) {
			require.NoError(t, s.c.FailNext(cloud.VerbTag.On(cloud.KindInstance), cloud.BeforeChange))
			_, err := s.c.TagInstance(ctx, s.ids["a"], map[string]string{"role": "x"}, nil)
			require.ErrorIs(t, err, cloud.ErrInjected)
		}, map[string]string{"role": "cp"}, []string{"a"}},
		{"retag refused", func(t *testing.T, s *scene) {
			_, err := s.c.TagInstance(ctx, s.ids["a"], map[string]string{"role": "x"}, []string{"role"})
			require.ErrorIs(t, err, cloud.ErrInvalidParameter)
		}, map[string]string{"role": "cp"}, []string{"a"}},
		{"deleted", func(t *testing.T, s *scene) { s.delete(t, "b") },
			map[string]string{"cluster": "c1"}, []string{"a"}},
		{"deleted, then created with the same tags", func(t *testing.T, s *scene) {
			s.delete(t, "a")
			s.create(t, "d", map[string]string{"cluster": "c1", "role": "cp"})
		}, map[string]string{"role": "cp"}, []string{"d"}},
		{"every one deleted", func(t *testing.T, s *scene) {
			for _, n := range []string{"a", "b", "c"} {
				s.delete(t, n)
			}
		}, map[string]string{"cluster": "c1"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScene(t)
			if tt.do != nil {
				tt.do(t, s)
			}
			got, err := findIDs(s.c.FindInstances(ctx, tt.tags))
			require.NoError(t, err)
			assert.Equal(t, s.names(tt.want...), got)
		})
	}
}

func TestFindKeepsToItsKind(t *testing.T) {
	ctx := t.Context()
	s := newScene(t)
	tags := map[string]string{"cluster": "c1"}
	networks, err := findIDs(s.c.FindNetworks(ctx, tags))
	require.NoError(t, err)
	assert.Equal(t, s.names("n"), networks)
	subnets, err := findIDs(s.c.FindSubnets(ctx, tags))
	require.NoError(t, err)
	assert.Empty(t, subnets)
	require.NoError(t, s.c.DeleteNetwork(ctx, s.ids["n"]))
	instances, err := findIDs(s.c.FindInstances(ctx, tags))
	require.NoError(t, err)
	assert.Equal(t, s.names("a", "b"), instances, "deleting a network of the same tags leaves the instances")
}

func TestFindKeepsToItsAccount(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	a, b := newTenant(t, c, "team-a"), newTenant(t, c, "team-b")
	tags := map[string]string{"role": "base"}
	find := func(tn tenant, tags map[string]string) []string {
		t.Helper()
		ids, err := findIDs(c.FindInstances(tn.ctx, tags))
		require.NoError(t, err)
		return ids
	}
	groupInstance := func(tn tenant) string { return tn.group.Instances[0].ID }

	assert.Equal(t, []string{groupInstance(a), a.inst.ID}, find(a, tags))
	assert.Equal(t, []string{groupInstance(b), b.inst.ID}, find(b, tags))

	_, err := c.TagInstance(a.ctx, a.inst.ID, map[string]string{"role": "moved"}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{groupInstance(a)}, find(a, tags), "a's retag")
	assert.Equal(t, []string{a.inst.ID}, find(a, map[string]string{"role": "moved"}))
	assert.Equal(t, []string{groupInstance(b), b.inst.ID}, find(b, tags), "b's instance keeps its tags")
	assert.Empty(t, find(b, map[string]string{"role": "moved"}))

	require.NoError(t, c.DeleteInstanceGroup(a.ctx, a.group.ID))
	assert.Empty(t, find(a, tags))
	assert.Equal(t, []string{groupInstance(b), b.inst.ID}, find(b, tags))
	_, err = c.FindInstances(ctx, tags)
	require.ErrorIs(t, err, cloud.ErrUnauthorized, "no account, no search")
}

func TestFindSeesGroupInstances(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	g, err := e.c.CreateInstanceGroup(ctx, cloud.InstanceGroupSpec{Name: "g", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", Size: 3,
		Tags: map[string]string{"pool": "p"}})
	require.NoError(t, err)
	find := func(tags map[string]string) []string {
		t.Helper()
		ids, err := findIDs(e.c.FindInstances(ctx, tags))
		require.NoError(t, err)
		return ids
	}
	members := func() []string {
		t.Helper()
		g, err := e.c.GetInstanceGroup(ctx, g.ID)
		require.NoError(t, err)
		ids := []string{}
		for _, i := range g.Instances {
			ids = append(ids, i.ID)
		}
		return ids
	}
	byGroup := map[string]string{cloud.TagInstanceGroup: g.ID}
	first := members()
	require.Len(t, first, 3)
	assert.Equal(t, first, find(byGroup))
	assert.Equal(t, first, find(map[string]string{"pool": "p"}))

	_, err = e.c.ScaleInstanceGroup(ctx, g.ID, 1)
	require.NoError(t, err)
	assert.Equal(t, first[:1], find(byGroup), "scaled down: the newest are gone")
	_, err = e.c.ScaleInstanceGroup(ctx, g.ID, 2)
	require.NoError(t, err)
	assert.Equal(t, members(), find(byGroup), "scaled up")
	require.NoError(t, e.c.DeleteInstanceGroup(ctx, g.ID))
	assert.Empty(t, find(byGroup))
	assert.Empty(t, find(map[string]string{"pool": "p"}))
}

func TestSearchLagSurvivesRetags(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name  string
		lag   int
		retag bool
		tags  map[string]string // searched after the create and the retag
		want  []int             // found per Find call
	}{
		{"no lag", 0, false, map[string]string{"role": "cp"}, []int{1, 1}},
		{"no lag, retagged", 0, true, map[string]string{"role": "new"}, []int{1, 1}},
		{"lag 2", 2, false, map[string]string{"role": "cp"}, []int{0, 0, 1}},
		{"lag 2, retagged: the lag runs from the create", 2, true, map[string]string{"role": "new"}, []int{0, 0, 1, 1}},
		{"lag 2, retagged, old tags", 2, true, map[string]string{"role": "cp"}, []int{0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, cloud.WithFaults(cloud.FaultConfig{SearchLag: tt.lag}))
			inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small",
				Tags: map[string]string{"cluster": "c1", "role": "cp"}})
			require.NoError(t, err)
			if tt.retag {
				_, err := e.c.TagInstance(ctx, inst.ID, map[string]string{"role": "new"}, nil)
				require.NoError(t, err)
			}
			var got []int
			for range tt.want {
				found, err := e.c.FindInstances(ctx, tt.tags)
				require.NoError(t, err)
				got = append(got, len(found))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSearchLagCountsFindsThatMatchNothing(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t, cloud.WithFaults(cloud.FaultConfig{SearchLag: 2}))
	_, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", Tags: map[string]string{"role": "cp"}})
	require.NoError(t, err)
	for range 2 {
		found, err := e.c.FindInstances(ctx, map[string]string{"unknown": "tag"})
		require.NoError(t, err)
		assert.Empty(t, found)
	}
	found, err := e.c.FindInstances(ctx, map[string]string{"role": "cp"})
	require.NoError(t, err)
	assert.Len(t, found, 1, "every Find of the kind counts, whatever its tags")
}

// TestFindMatchesAModel runs random creates, retags, deletes and finds of instances and checks
// every find against a plain list of the live instances.
func TestFindMatchesAModel(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	rng := rand.New(rand.NewPCG(1, 2))
	randomTags := func() map[string]string {
		tags := map[string]string{}
		for _, k := range []string{"a", "b", "c"} {
			if rng.IntN(3) > 0 {
				tags[k] = fmt.Sprint(rng.IntN(3))
			}
		}
		return tags
	}
	type live struct {
		id   string
		tags map[string]string
	}
	var model []live // creation order
	for step := range 2000 {
		switch op := rng.IntN(10); {
		case op < 3 && len(model) < 200:
			tags := randomTags()
			inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", Tags: tags})
			require.NoError(t, err)
			model = append(model, live{inst.ID, tags})
		case op < 5 && len(model) > 0:
			i := rng.IntN(len(model))
			set, remove := randomTags(), []string{}
			for _, k := range []string{"a", "b", "c"} {
				if _, ok := set[k]; !ok && rng.IntN(2) == 0 {
					remove = append(remove, k)
				}
			}
			_, err := e.c.TagInstance(ctx, model[i].id, set, remove)
			require.NoError(t, err)
			maps.Copy(model[i].tags, set)
			for _, k := range remove {
				delete(model[i].tags, k)
			}
		case op < 6 && len(model) > 0:
			i := rng.IntN(len(model))
			require.NoError(t, e.c.DeleteInstance(ctx, model[i].id))
			model = slices.Delete(model, i, i+1)
		default:
			want := randomTags()
			if len(want) == 0 {
				continue
			}
			expected := []string{}
			for _, l := range model {
				if matches(l.tags, want) {
					expected = append(expected, l.id)
				}
			}
			got, err := findIDs(e.c.FindInstances(ctx, want))
			require.NoError(t, err)
			require.Equal(t, expected, got, "step %d: find %v", step, want)
		}
	}
}

func matches(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}
