package conversion

import (
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxConditions is the most conditions the conversions accept.
const MaxConditions = 64

// NoReasonReported is the reason a v1beta2 condition gets when its v1beta1 one has no reason, or one that
// metav1.Condition does not allow (not CamelCase, longer than 1024 bytes). It is the reason Cluster API gives
// in the same case when it mirrors a condition.
const NoReasonReported = "NoReasonReported"

// reasonRE is the pattern and maxReason the length metav1.Condition's reason must match.
var reasonRE = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

const maxReason = 1024

// V1Beta1ConditionSeverity is the severity of a v1beta1 condition whose status is False.
type V1Beta1ConditionSeverity string

// The severities of Cluster API v1beta1 conditions.
const (
	SeverityError   V1Beta1ConditionSeverity = "Error"
	SeverityWarning V1Beta1ConditionSeverity = "Warning"
	SeverityInfo    V1Beta1ConditionSeverity = "Info"
	SeverityNone    V1Beta1ConditionSeverity = ""
)

// V1Beta1Condition is a condition in the JSON shape of Cluster API's v1beta1 Condition, the shape of
// status.conditions under the v1beta1 contract.
// +kubebuilder:object:generate=true
type V1Beta1Condition struct {
	// type of condition in CamelCase or in foo.example.com/CamelCase.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Type string `json:"type"`

	// status of the condition, one of True, False, Unknown.
	// +required
	Status corev1.ConditionStatus `json:"status"`

	// severity provides an explicit classification of Reason code, so the users or machines can immediately
	// understand the current situation and act accordingly. It is set only when Status is False.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Severity V1Beta1ConditionSeverity `json:"severity,omitempty"`

	// lastTransitionTime is the last time the condition transitioned from one status to another.
	// +required
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`

	// reason is the reason for the condition's last transition in CamelCase.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Reason string `json:"reason,omitempty"`

	// message is a human readable message indicating details about the transition.
	// +optional
	// +kubebuilder:validation:MaxLength=10240
	Message string `json:"message,omitempty"`
}

// ConditionsStash is what one shape of conditions holds that the other cannot, keyed by condition type: the
// conversions return it and take it back, and a provider stashes it. It is nil when nothing was lost.
type ConditionsStash map[string]ConditionStash

// ConditionStash is what one condition lost. It is restored only while the condition has the same status.
type ConditionStash struct {
	// Status is the status of the condition when it was stashed.
	Status corev1.ConditionStatus `json:"status"`
	// Severity is the v1beta1 severity, when it is not the default of its status (SeverityInfo for False,
	// SeverityNone otherwise).
	Severity *V1Beta1ConditionSeverity `json:"severity,omitempty"`
	// Reason is the v1beta1 reason that NoReasonReported replaced.
	Reason *string `json:"reason,omitempty"`
	// ObservedGeneration is the v1beta2 observedGeneration.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// ConditionsToV1Beta2 returns the metav1.Conditions of v1beta1 conditions, in the same order, and the stash
// for ConditionsToV1Beta1: the severities that are not the default of their status and the reasons replaced by
// NoReasonReported. restored, the stash ConditionsToV1Beta1 returned, puts back observedGeneration. It fails,
// naming the condition, for an empty or repeated type, and for more than MaxConditions conditions.
func ConditionsToV1Beta2(in []V1Beta1Condition, restored ConditionsStash) ([]metav1.Condition, ConditionsStash, error) {
	if err := checkConditions(len(in), func(i int) string { return in[i].Type }); err != nil {
		return nil, nil, err
	}
	if in == nil {
		return nil, nil, nil
	}
	out := make([]metav1.Condition, 0, len(in))
	var stash ConditionsStash
	for _, c := range in {
		var lost ConditionStash
		if c.Severity != defaultSeverity(c.Status) {
			lost.Severity = new(c.Severity)
		}
		reason := c.Reason
		if len(reason) > maxReason || !reasonRE.MatchString(reason) {
			lost.Reason, reason = new(reason), NoReasonReported
		}
		stash = stash.add(c.Type, c.Status, lost)
		out = append(out, metav1.Condition{
			Type:               c.Type,
			Status:             metav1.ConditionStatus(c.Status),
			ObservedGeneration: restored.lookup(c.Type, c.Status).ObservedGeneration,
			LastTransitionTime: c.LastTransitionTime,
			Reason:             reason,
			Message:            c.Message,
		})
	}
	return out, stash, nil
}

// ConditionsToV1Beta1 returns the v1beta1 conditions of metav1.Conditions, in the same order, and the stash for
// ConditionsToV1Beta2: the observedGenerations. A False condition gets SeverityInfo, any other SeverityNone,
// unless restored, the stash ConditionsToV1Beta2 returned, has its severity; a NoReasonReported reason gets back
// the v1beta1 reason it replaced. It fails, naming the condition, for an empty or repeated type, and for more
// than MaxConditions conditions.
func ConditionsToV1Beta1(in []metav1.Condition, restored ConditionsStash) ([]V1Beta1Condition, ConditionsStash, error) {
	if err := checkConditions(len(in), func(i int) string { return in[i].Type }); err != nil {
		return nil, nil, err
	}
	if in == nil {
		return nil, nil, nil
	}
	out := make([]V1Beta1Condition, 0, len(in))
	var stash ConditionsStash
	for _, c := range in {
		status := corev1.ConditionStatus(c.Status)
		if c.ObservedGeneration != 0 {
			stash = stash.add(c.Type, status, ConditionStash{ObservedGeneration: c.ObservedGeneration})
		}
		r := restored.lookup(c.Type, status)
		severity := defaultSeverity(status)
		if r.Severity != nil {
			severity = *r.Severity
		}
		reason := c.Reason
		if reason == NoReasonReported && r.Reason != nil {
			reason = *r.Reason
		}
		out = append(out, V1Beta1Condition{
			Type:               c.Type,
			Status:             status,
			Severity:           severity,
			LastTransitionTime: c.LastTransitionTime,
			Reason:             reason,
			Message:            c.Message,
		})
	}
	return out, stash, nil
}

// defaultSeverity is the severity a v1beta1 condition of this status gets when nothing says otherwise: Info
// for False (the condition reports something not done yet, the mildest reading), none for True and Unknown,
// which v1beta1 gives no severity.
func defaultSeverity(s corev1.ConditionStatus) V1Beta1ConditionSeverity {
	if s == corev1.ConditionFalse {
		return SeverityInfo
	}
	return SeverityNone
}

// add records what the condition lost, when it lost anything.
func (s ConditionsStash) add(typ string, status corev1.ConditionStatus, lost ConditionStash) ConditionsStash {
	if lost == (ConditionStash{}) {
		return s
	}
	if s == nil {
		s = ConditionsStash{}
	}
	lost.Status = status
	s[typ] = lost
	return s
}

// lookup returns what the condition lost while it had the same status, zero otherwise.
func (s ConditionsStash) lookup(typ string, status corev1.ConditionStatus) ConditionStash {
	if l, ok := s[typ]; ok && l.Status == status {
		return l
	}
	return ConditionStash{}
}

func checkConditions(n int, typeOf func(int) string) error {
	if n > MaxConditions {
		return fmt.Errorf("cannot convert conditions: %d, more than %d", n, MaxConditions)
	}
	seen := make(map[string]bool, n)
	for i := range n {
		t := typeOf(i)
		if t == "" {
			return fmt.Errorf("cannot convert condition %d: type must not be empty", i)
		}
		if seen[t] {
			return fmt.Errorf("cannot convert condition %d: duplicate type %q", i, t)
		}
		seen[t] = true
	}
	return nil
}
