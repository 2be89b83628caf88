package conditions

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// object is a Setter with a generation that counts its writes.
type object struct {
	metav1.ObjectMeta
	conds  []metav1.Condition
	writes int
}

func (o *object) GetConditions() []metav1.Condition  { return o.conds }
func (o *object) SetConditions(c []metav1.Condition) { o.conds = c; o.writes++ }

// plain is a Setter without a generation.
type plain struct{ conds []metav1.Condition }

func (p *plain) GetConditions() []metav1.Condition  { return p.conds }
func (p *plain) SetConditions(c []metav1.Condition) { p.conds = c }

var (
	t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 = t0.Add(time.Hour)
)

func cond(t string, st metav1.ConditionStatus, reason, msg string, at time.Time) metav1.Condition {
	return metav1.Condition{Type: t, Status: st, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(at)}
}

func types(conds []metav1.Condition) []string {
	out := make([]string, 0, len(conds))
	for _, c := range conds {
		out = append(out, c.Type)
	}
	return out
}

func TestSetLastTransitionTime(t *testing.T) {
	tests := []struct {
		name        string
		existing    []metav1.Condition
		set         metav1.Condition
		wantChanged bool
		wantTime    time.Time
	}{
		{"new condition gets clock time", nil,
			cond("A", metav1.ConditionTrue, "Ok", "", time.Time{}), true, t1},
		{"same status keeps time when reason and message change",
			[]metav1.Condition{cond("A", metav1.ConditionFalse, "Old", "old", t0)},
			cond("A", metav1.ConditionFalse, "New", "new", time.Time{}), true, t0},
		{"same status keeps time even if caller passes one",
			[]metav1.Condition{cond("A", metav1.ConditionFalse, "Old", "", t0)},
			cond("A", metav1.ConditionFalse, "Old", "", t1.Add(time.Hour)), false, t0},
		{"status change takes clock time",
			[]metav1.Condition{cond("A", metav1.ConditionFalse, "Old", "", t0)},
			cond("A", metav1.ConditionTrue, "Old", "", time.Time{}), true, t1},
		{"status change keeps caller time",
			[]metav1.Condition{cond("A", metav1.ConditionFalse, "Old", "", t0)},
			cond("A", metav1.ConditionTrue, "Old", "", t0.Add(time.Minute)), true, t0.Add(time.Minute)},
		{"status change is a change even with the same caller time",
			[]metav1.Condition{cond("A", metav1.ConditionFalse, "Old", "", t0)},
			cond("A", metav1.ConditionTrue, "Old", "", t0), true, t0},
		{"existing zero time is repaired",
			[]metav1.Condition{cond("A", metav1.ConditionTrue, "Ok", "", time.Time{})},
			cond("A", metav1.ConditionTrue, "Ok", "", time.Time{}), true, t1},
		{"identical condition is no change",
			[]metav1.Condition{cond("A", metav1.ConditionTrue, "Ok", "m", t0)},
			cond("A", metav1.ConditionTrue, "Ok", "m", time.Time{}), false, t0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &object{conds: tt.existing}
			changed, err := Set(o, tt.set, WithTime(t1.Add(300*time.Millisecond)))
			require.NoError(t, err)
			assert.Equal(t, tt.wantChanged, changed)
			if tt.wantChanged {
				assert.Equal(t, 1, o.writes)
			} else {
				assert.Zero(t, o.writes, "no write when nothing changed")
			}
			got := Get(o, "A")
			require.NotNil(t, got)
			assert.True(t, tt.wantTime.Equal(got.LastTransitionTime.Time), "got %v want %v", got.LastTransitionTime, tt.wantTime)
			assert.Equal(t, tt.set.Reason, got.Reason)
			assert.Equal(t, tt.set.Message, got.Message)
		})
	}
}

func TestSetObservedGeneration(t *testing.T) {
	tests := []struct {
		name     string
		setter   Setter
		condGen  int64
		opts     []Option
		expected int64
	}{
		{"from object", &object{ObjectMeta: metav1.ObjectMeta{Generation: 7}}, 0, nil, 7},
		{"condition value wins over object", &object{ObjectMeta: metav1.ObjectMeta{Generation: 7}}, 3, nil, 3},
		{"option wins over both", &object{ObjectMeta: metav1.ObjectMeta{Generation: 7}}, 3, []Option{WithObservedGeneration(9)}, 9},
		{"option zero wins", &object{ObjectMeta: metav1.ObjectMeta{Generation: 7}}, 3, []Option{WithObservedGeneration(0)}, 0},
		{"no generation getter", &plain{}, 0, nil, 0},
		{"slice with option", ForSlice(&[]metav1.Condition{}), 0, []Option{WithObservedGeneration(4)}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Set(tt.setter, metav1.Condition{Type: "A", Status: metav1.ConditionTrue, Reason: "Ok", ObservedGeneration: tt.condGen}, tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, tt.expected, Get(tt.setter, "A").ObservedGeneration)
		})
	}

	t.Run("generation bump alone is a change", func(t *testing.T) {
		o := &object{ObjectMeta: metav1.ObjectMeta{Generation: 1}}
		_, err := SetTrue(o, "A", "Ok", "", WithTime(t0))
		require.NoError(t, err)
		o.Generation = 2
		changed, err := SetTrue(o, "A", "Ok", "", WithTime(t1))
		require.NoError(t, err)
		assert.True(t, changed)
		assert.Equal(t, int64(2), Get(o, "A").ObservedGeneration)
		assert.True(t, t0.Equal(Get(o, "A").LastTransitionTime.Time), "status unchanged keeps time")
	})
}

func TestSetKeepsListSortedAndClean(t *testing.T) {
	orig := []metav1.Condition{
		cond("Zeta", metav1.ConditionTrue, "Ok", "", t0),
		cond("Alpha", metav1.ConditionTrue, "Ok", "", t0),
		cond("Alpha", metav1.ConditionFalse, "Dup", "", t0),
	}
	o := &object{conds: orig}
	changed, err := SetTrue(o, "Alpha", "Ok", "", WithTime(t1))
	require.NoError(t, err)
	assert.True(t, changed, "duplicate of the set type dropped, list sorted")
	assert.Equal(t, []string{"Alpha", "Zeta"}, types(o.conds))
	assert.Equal(t, metav1.ConditionTrue, o.conds[0].Status, "first of the duplicates is the one updated")
	assert.True(t, t0.Equal(o.conds[0].LastTransitionTime.Time))
	assert.Equal(t, "Zeta", orig[0].Type, "caller's slice is not reordered in place")

	changed, err = SetFalse(o, Ready, "NotReady", "", WithTime(t1))
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, []string{Ready, "Alpha", "Zeta"}, types(o.conds))

	t.Run("reorder alone is a change", func(t *testing.T) {
		p := &plain{conds: []metav1.Condition{cond("B", metav1.ConditionTrue, "Ok", "", t0), cond("A", metav1.ConditionTrue, "Ok", "", t0)}}
		changed, err := SetTrue(p, "B", "Ok", "")
		require.NoError(t, err)
		assert.True(t, changed)
		assert.Equal(t, []string{"A", "B"}, types(p.conds))
	})
}

func TestSetDefaultsAndTruncation(t *testing.T) {
	o := &object{}
	_, err := SetUnknown(o, "A", "", "", withClock(func() time.Time { return t0.Add(999 * time.Millisecond) }))
	require.NoError(t, err)
	c := Get(o, "A")
	assert.Equal(t, ReasonUnspecified, c.Reason)
	assert.Equal(t, metav1.ConditionUnknown, c.Status)
	assert.True(t, t0.Equal(c.LastTransitionTime.Time), "time truncated to seconds, got %v", c.LastTransitionTime)

	_, err = SetTrue(o, "B", "Ok", "", withClock(nil), nil)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), Get(o, "B").LastTransitionTime.Time, time.Minute, "nil clock and nil option keep time.Now")
}

func TestSetErrors(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		name    string
		c       metav1.Condition
		wantMsg string
	}{
		{"empty type", metav1.Condition{Status: metav1.ConditionTrue, Reason: "Ok"}, `invalid type "": must not be empty`},
		{"type with space", metav1.Condition{Type: "Net Ready", Status: metav1.ConditionTrue, Reason: "Ok"}, `invalid type "Net Ready": must match`},
		{"type too long", metav1.Condition{Type: "x.io/" + strings.Repeat("a", 312), Status: metav1.ConditionTrue, Reason: "Ok"}, "must be at most 316 characters"},
		{"type name over 63", metav1.Condition{Type: long, Status: metav1.ConditionTrue, Reason: "Ok"}, "must have a name of at most 63"},
		{"reason with space", metav1.Condition{Type: "A", Status: metav1.ConditionTrue, Reason: "bad reason"}, `invalid reason "bad reason": must match ^[A-Za-z]`},
		{"reason starting with digit", metav1.Condition{Type: "A", Status: metav1.ConditionTrue, Reason: "1Bad"}, `invalid reason "1Bad"`},
		{"reason ending with comma", metav1.Condition{Type: "A", Status: metav1.ConditionTrue, Reason: "Bad,"}, `invalid reason "Bad,"`},
		{"reason too long", metav1.Condition{Type: "A", Status: metav1.ConditionTrue, Reason: strings.Repeat("R", 1025)}, "must be at most 1024 characters"},
		{"bad status", metav1.Condition{Type: "A", Status: "Yes", Reason: "Ok"}, `invalid status "Yes": must be "True", "False" or "Unknown"`},
		{"empty status", metav1.Condition{Type: "A", Reason: "Ok"}, `invalid status ""`},
		{"message too long", metav1.Condition{Type: "A", Status: metav1.ConditionTrue, Reason: "Ok", Message: strings.Repeat("m", 32769)}, "invalid message of 32769 bytes: must be at most 32768"},
		{"negative generation", metav1.Condition{Type: "A", Status: metav1.ConditionTrue, Reason: "Ok", ObservedGeneration: -1}, "invalid observedGeneration -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &object{}
			changed, err := Set(o, tt.c)
			require.ErrorIs(t, err, ErrInvalidCondition)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.True(t, strings.HasPrefix(err.Error(), "cannot set condition "), err.Error())
			assert.False(t, changed)
			assert.Zero(t, o.writes, "invalid condition never written")
			c := tt.c
			c.LastTransitionTime = metav1.NewTime(t0)
			assert.NotEmpty(t, metav1validation.ValidateCondition(c, field.NewPath("c")), "apimachinery rejects it too")
		})
	}

	t.Run("valid edge cases", func(t *testing.T) {
		for _, c := range []metav1.Condition{
			{Type: "infrastructure.example.com/VPCReady", Status: metav1.ConditionTrue, Reason: "A"},
			{Type: "a", Status: metav1.ConditionFalse, Reason: "Wait_For:Subnet,Route_"},
			{Type: strings.Repeat("a", 63), Status: metav1.ConditionUnknown, Reason: strings.Repeat("R", 1024), Message: strings.Repeat("m", 32768)},
		} {
			o := &object{}
			_, err := Set(o, c)
			assert.NoError(t, err, c.Type)
			assert.Empty(t, metav1validation.ValidateConditions(o.conds, field.NewPath("conditions")), "apimachinery accepts it")
		}
	})
}

func TestNilSafety(t *testing.T) {
	var typedNil *object
	var nilSlice *[]metav1.Condition
	setters := map[string]Setter{"nil interface": nil, "typed nil pointer": typedNil, "nil slice pointer": ForSlice(nilSlice)}
	for name, s := range setters {
		t.Run(name, func(t *testing.T) {
			changed, err := SetTrue(s, "A", "Ok", "")
			require.ErrorIs(t, err, ErrNilSetter)
			assert.Equal(t, `cannot set condition "A": nil condition setter`, err.Error())
			assert.False(t, changed)
			_, err = SetSummary(s, []string{"A"})
			require.ErrorIs(t, err, ErrNilSetter)
			_, err = SetPaused(s, true, "")
			require.ErrorIs(t, err, ErrNilSetter)
			assert.False(t, Delete(s, "A"))
			assert.Nil(t, Get(s, "A"))
			assert.False(t, Has(s, "A"))
			assert.False(t, IsTrue(s, "A"))
			assert.False(t, IsFalse(s, "A"))
			assert.True(t, IsUnknown(s, "A"))
			assert.Empty(t, GetReason(s, "A"))
			assert.Empty(t, GetMessage(s, "A"))
		})
	}
	t.Run("nil conditions slice", func(t *testing.T) {
		o := &object{}
		assert.Nil(t, Get(o, "A"))
		assert.False(t, Delete(o, "A"))
		Sort(nil)
		changed, err := SetTrue(o, "A", "Ok", "")
		require.NoError(t, err)
		assert.True(t, changed)
	})
}

func TestReaders(t *testing.T) {
	o := &object{conds: []metav1.Condition{
		cond("T", metav1.ConditionTrue, "IsTrue", "yes", t0),
		cond("F", metav1.ConditionFalse, "IsFalse", "no", t0),
		cond("U", metav1.ConditionUnknown, "IsUnknown", "maybe", t0),
	}}
	tests := []struct {
		typ                         string
		has, isTrue, isFalse, isUnk bool
		reason, message             string
	}{
		{"T", true, true, false, false, "IsTrue", "yes"},
		{"F", true, false, true, false, "IsFalse", "no"},
		{"U", true, false, false, true, "IsUnknown", "maybe"},
		{"Missing", false, false, false, true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			assert.Equal(t, tt.has, Has(o, tt.typ))
			assert.Equal(t, tt.isTrue, IsTrue(o, tt.typ))
			assert.Equal(t, tt.isFalse, IsFalse(o, tt.typ))
			assert.Equal(t, tt.isUnk, IsUnknown(o, tt.typ))
			assert.Equal(t, tt.reason, GetReason(o, tt.typ))
			assert.Equal(t, tt.message, GetMessage(o, tt.typ))
		})
	}
	Get(o, "T").Status = metav1.ConditionFalse
	assert.True(t, IsTrue(o, "T"), "Get returns a copy")
}

func TestDelete(t *testing.T) {
	orig := []metav1.Condition{cond(Ready, metav1.ConditionTrue, "Ok", "", t0), cond("A", metav1.ConditionTrue, "Ok", "", t0), cond("B", metav1.ConditionTrue, "Ok", "", t0)}
	o := &object{conds: orig}
	assert.True(t, Delete(o, "A"))
	assert.Equal(t, []string{Ready, "B"}, types(o.conds))
	assert.Equal(t, "A", orig[1].Type, "caller's slice untouched")
	assert.False(t, Delete(o, "A"))
	assert.Equal(t, 1, o.writes, "no write when absent")
}

func TestSort(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"ready first then alphabetical", []string{"Zeta", Paused, Ready, "Alpha", Deleting}, []string{Ready, "Alpha", Deleting, Paused, "Zeta"}},
		{"byte order, upper before lower", []string{"b", "B", "a.io/X", "A"}, []string{"A", "B", "a.io/X", "b"}},
		{"already sorted", []string{Ready, "A"}, []string{Ready, "A"}},
		{"empty", []string{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conds := make([]metav1.Condition, 0, len(tt.in))
			for _, typ := range tt.in {
				conds = append(conds, metav1.Condition{Type: typ})
			}
			Sort(conds)
			assert.Equal(t, tt.want, types(conds))
		})
	}
}

func TestSortIsStableForSameType(t *testing.T) {
	conds := []metav1.Condition{{Type: "B", Reason: "First"}, {Type: "A"}, {Type: "B", Reason: "Second"}}
	Sort(conds)
	assert.Equal(t, []string{"A", "B", "B"}, types(conds))
	assert.Equal(t, []string{"First", "Second"}, []string{conds[1].Reason, conds[2].Reason})
}

func TestForSlice(t *testing.T) {
	var status struct{ Conditions []metav1.Condition }
	s := ForSlice(&status.Conditions)
	_, err := SetFalse(s, "B", "Waiting", "", WithTime(t0))
	require.NoError(t, err)
	_, err = SetTrue(s, "A", "Ok", "", WithTime(t0))
	require.NoError(t, err)
	assert.Equal(t, []string{"A", "B"}, types(status.Conditions))
	assert.True(t, IsFalse(s, "B"))
}

func TestSetPaused(t *testing.T) {
	tests := []struct {
		name    string
		paused  bool
		message string
		status  metav1.ConditionStatus
		reason  string
	}{
		{"paused", true, "Cluster spec.paused is true", metav1.ConditionTrue, ReasonPaused},
		{"not paused", false, "", metav1.ConditionFalse, ReasonNotPaused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &object{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
			changed, err := SetPaused(o, tt.paused, tt.message, WithTime(t0))
			require.NoError(t, err)
			assert.True(t, changed)
			assert.Equal(t, metav1.Condition{Type: Paused, Status: tt.status, Reason: tt.reason, Message: tt.message,
				ObservedGeneration: 3, LastTransitionTime: metav1.NewTime(t0)}, *Get(o, Paused))
			changed, err = SetPaused(o, tt.paused, tt.message, WithTime(t1))
			require.NoError(t, err)
			assert.False(t, changed, "second call is a no-op")
		})
	}
}
