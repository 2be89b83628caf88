package conditions

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSetSummary(t *testing.T) {
	T, F, U := metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	tests := []struct {
		name       string
		conds      []metav1.Condition
		steps      []string
		opts       []Option
		wantStatus metav1.ConditionStatus
		wantReason string
		wantMsg    string
	}{
		{"all true", []metav1.Condition{cond("Network", T, "Ok", "", t0), cond("VM", T, "Ok", "", t0)},
			[]string{"Network", "VM"}, nil, T, ReasonReady, ""},
		{"one false with message", []metav1.Condition{cond("Network", F, "QuotaExceeded", "subnet quota exceeded", t0), cond("VM", T, "Ok", "", t0)},
			[]string{"Network", "VM"}, nil, F, ReasonNotReady, "Network: subnet quota exceeded"},
		{"false without message shows status and reason", []metav1.Condition{cond("Network", F, "Waiting", "", t0)},
			[]string{"Network"}, nil, F, ReasonNotReady, "Network is False (Waiting)"},
		{"missing step is unknown not reported", []metav1.Condition{cond("Network", T, "Ok", "", t0)},
			[]string{"Network", "LoadBalancer"}, nil, U, ReasonStepsNotReported, "LoadBalancer not reported"},
		{"false beats missing, message in step order", []metav1.Condition{cond("Network", F, "Failed", "boom", t0)},
			[]string{"Network", "LoadBalancer"}, nil, F, ReasonNotReady, "Network: boom; LoadBalancer not reported"},
		{"step order is caller order, not list order", []metav1.Condition{cond("A", F, "X", "a", t0), cond("B", F, "X", "b", t0)},
			[]string{"B", "A"}, nil, F, ReasonNotReady, "B: b; A: a"},
		{"unknown beats missing", []metav1.Condition{cond("Network", U, "Checking", "", t0)},
			[]string{"Network", "VM"}, nil, U, ReasonReadyUnknown, "Network is Unknown (Checking); VM not reported"},
		{"false beats unknown", []metav1.Condition{cond("Network", U, "Checking", "", t0), cond("VM", F, "Failed", "", t0)},
			[]string{"Network", "VM"}, nil, F, ReasonNotReady, "Network is Unknown (Checking); VM is False (Failed)"},
		{"invalid stored status counts as unknown", []metav1.Condition{{Type: "Network", Status: "Maybe"}},
			[]string{"Network"}, nil, U, ReasonReadyUnknown, "Network is Maybe"},
		{"negative polarity false is good", []metav1.Condition{cond(Deleting, F, ReasonNotDeleting, "", t0), cond(Paused, F, ReasonNotPaused, "", t0), cond("VM", T, "Ok", "", t0)},
			[]string{"VM", Deleting, Paused}, []Option{WithNegativePolarity(Deleting, Paused)}, T, ReasonReady, ""},
		{"negative polarity true is bad", []metav1.Condition{cond(Deleting, T, ReasonDeleting, "deleting VM", t0), cond("VM", T, "Ok", "", t0)},
			[]string{"VM", Deleting}, []Option{WithNegativePolarity(Deleting)}, F, ReasonNotReady, "Deleting: deleting VM"},
		{"without polarity option false is bad", []metav1.Condition{cond(Deleting, F, ReasonNotDeleting, "", t0)},
			[]string{Deleting}, nil, F, ReasonNotReady, "Deleting is False (NotDeleting)"},
		{"negative polarity missing still not reported", nil,
			[]string{Paused}, []Option{WithNegativePolarity(Paused)}, U, ReasonStepsNotReported, "Paused not reported"},
		{"duplicate steps counted once", nil,
			[]string{"A", "A"}, nil, U, ReasonStepsNotReported, "A not reported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &object{ObjectMeta: metav1.ObjectMeta{Generation: 5}, conds: tt.conds}
			changed, err := SetSummary(o, tt.steps, append(tt.opts, WithTime(t1))...)
			require.NoError(t, err)
			assert.True(t, changed)
			got := Get(o, Ready)
			require.NotNil(t, got)
			assert.Equal(t, tt.wantStatus, got.Status)
			assert.Equal(t, tt.wantReason, got.Reason)
			assert.Equal(t, tt.wantMsg, got.Message)
			assert.Equal(t, int64(5), got.ObservedGeneration)
			assert.Equal(t, Ready, o.conds[0].Type, "Ready sorted first")

			changed, err = SetSummary(o, tt.steps, append(tt.opts, WithTime(t1.Add(time.Hour)))...)
			require.NoError(t, err)
			assert.False(t, changed, "recomputing the same summary is a no-op")
			assert.True(t, t1.Equal(Get(o, Ready).LastTransitionTime.Time))
		})
	}
}

func TestSetSummaryTransitions(t *testing.T) {
	o := &object{}
	steps := []string{"Network", "VM"}
	_, err := SetSummary(o, steps, WithTime(t0))
	require.NoError(t, err)
	assert.True(t, IsUnknown(o, Ready))

	_, err = SetFalse(o, "Network", "Creating", "creating subnet", WithTime(t0))
	require.NoError(t, err)
	_, err = SetSummary(o, steps, WithTime(t1))
	require.NoError(t, err)
	assert.True(t, IsFalse(o, Ready))
	assert.True(t, t1.Equal(Get(o, Ready).LastTransitionTime.Time))

	_, err = SetFalse(o, "Network", "Creating", "creating route table", WithTime(t1))
	require.NoError(t, err)
	changed, err := SetSummary(o, steps, WithTime(t1.Add(time.Minute)))
	require.NoError(t, err)
	assert.True(t, changed, "message changed")
	assert.Equal(t, "Network: creating route table; VM not reported", GetMessage(o, Ready))
	assert.True(t, t1.Equal(Get(o, Ready).LastTransitionTime.Time), "status still False keeps time")

	_, err = SetTrue(o, "Network", "Created", "", WithTime(t1))
	require.NoError(t, err)
	_, err = SetTrue(o, "VM", "Created", "", WithTime(t1))
	require.NoError(t, err)
	_, err = SetSummary(o, steps, WithTime(t1.Add(2*time.Minute)))
	require.NoError(t, err)
	assert.True(t, IsTrue(o, Ready))
	assert.Empty(t, GetMessage(o, Ready))
	assert.Equal(t, []string{Ready, "Network", "VM"}, types(o.conds))
}

func TestSetSummaryErrors(t *testing.T) {
	tests := []struct {
		name    string
		steps   []string
		wantMsg string
	}{
		{"no steps", nil, `cannot set summary "Ready": invalid forConditionTypes: must not be empty`},
		{"summary of itself", []string{"A", Ready}, `invalid forConditionTypes entry "Ready": must not be the summary itself`},
		{"invalid step type", []string{"Net Ready"}, `invalid type "Net Ready": must match`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &object{}
			changed, err := SetSummary(o, tt.steps)
			require.ErrorIs(t, err, ErrInvalidCondition)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.False(t, changed)
			assert.Zero(t, o.writes)
		})
	}
}

func TestSetSummaryLongMessageIsCut(t *testing.T) {
	big := strings.Repeat("é", maxMessageLength/2) // 2 bytes each: exactly the limit
	o := &object{conds: []metav1.Condition{cond("A", metav1.ConditionFalse, "X", big, t0), cond("B", metav1.ConditionFalse, "X", big, t0)}}
	_, err := SetSummary(o, []string{"A", "B"})
	require.NoError(t, err)
	msg := GetMessage(o, Ready)
	assert.LessOrEqual(t, len(msg), maxMessageLength)
	assert.True(t, utf8.ValidString(msg), "cut on a rune boundary")
	assert.True(t, strings.HasPrefix(msg, "A: é"))
	assert.True(t, strings.HasSuffix(msg, "..."))
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijk", 10, "abcdefg..."},
		{"ééééé", 8, "éé..."}, // 10 bytes; cut at byte 5 falls inside a rune
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, truncate(tt.in, tt.limit), tt.in)
	}
}
