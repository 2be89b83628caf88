package conversion_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/contract/conversion/internal/testapi/dual"
	"github.com/capkit/capkit/internal/accessorgen"
)

func TestStash(t *testing.T) {
	tests := []struct {
		name    string
		annots  map[string]string
		value   any
		want    map[string]string // annotations after Stash
		wantErr string
	}{
		{name: "adds", annots: map[string]string{"a": "b"}, value: map[string]int{"x": 1},
			want: map[string]string{"a": "b", conversion.StashAnnotation: `{"x":1}`}},
		{name: "nothing lost removes", annots: map[string]string{conversion.StashAnnotation: "{}"}, value: struct {
			A string `json:"a,omitempty"`
		}{}},
		{name: "nil removes", annots: map[string]string{"a": "b", conversion.StashAnnotation: "x"}, value: nil, want: map[string]string{"a": "b"}},
		{name: "too big", value: strings.Repeat("x", conversion.MaxStashSize), wantErr: `cannot stash fields of "ns/m": 131074 bytes of JSON, more than 131072`},
		{name: "not JSON", value: func() {}, wantErr: `cannot stash fields of "ns/m": json: unsupported type`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &metav1.ObjectMeta{Name: "m", Namespace: "ns", Annotations: tt.annots}
			shared := obj.Annotations
			before := len(shared)
			err := conversion.Stash(obj, tt.value)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, obj.Annotations)
			assert.Len(t, shared, before, "the map it started with is not changed")
		})
	}
	require.EqualError(t, conversion.Stash(nil, 1), "cannot stash: nil object")
}

func TestRestore(t *testing.T) {
	tests := []struct {
		name      string
		annots    map[string]string
		want      map[string]int
		wantFound bool
	}{
		{name: "missing", annots: map[string]string{"a": "b"}},
		{name: "no annotations"},
		{name: "restores and removes", annots: map[string]string{conversion.StashAnnotation: `{"x":1}`}, want: map[string]int{"x": 1}, wantFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &metav1.ObjectMeta{Name: "m", Namespace: "ns", Annotations: tt.annots}
			shared := obj.Annotations
			var got map[string]int
			found, err := conversion.Restore(obj, &got)
			assert.NotContains(t, obj.Annotations, conversion.StashAnnotation, "removed whatever happens")
			require.NoError(t, err)
			assert.Equal(t, tt.wantFound, found)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.annots, shared, "the map it started with is not changed")
		})
	}
	_, err := conversion.Restore(nil, nil)
	require.EqualError(t, err, "cannot restore: nil object")
}

func TestProviderID(t *testing.T) {
	tests := []struct {
		v1 *string
		v2 string
	}{{nil, ""}, {new("aws:///i-1"), "aws:///i-1"}}
	for _, tt := range tests {
		assert.Equal(t, tt.v2, conversion.ProviderIDToV1Beta2(tt.v1))
		assert.Equal(t, tt.v1, conversion.ProviderIDToV1Beta1(tt.v2))
	}
	assert.Empty(t, conversion.ProviderIDToV1Beta2(new("")), "a pointer to \"\" is unset")
}

func TestProvisioned(t *testing.T) {
	tests := []struct {
		name        string
		provisioned *bool
		ready       bool
		stash       *bool
	}{
		{"unset", nil, false, nil},
		{"false", new(false), false, new(false)},
		{"true", new(true), true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ready, stash := conversion.ProvisionedToReady(tt.provisioned)
			assert.Equal(t, tt.ready, ready)
			assert.Equal(t, tt.stash, stash)
			assert.Equal(t, tt.provisioned, conversion.ReadyToProvisioned(ready, stash), "round trip")
		})
	}
	assert.Equal(t, new(true), conversion.ReadyToProvisioned(true, new(false)), "a stale stash does not win")
}

func TestFailureDomainsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   []contract.FailureDomain
		want conversion.FailureDomainsStash
	}{
		{name: "nil"},
		{name: "sorted, all set", in: []contract.FailureDomain{{Name: "a", ControlPlane: new(true)}, {Name: "b", ControlPlane: new(false), Attributes: map[string]string{"k": "v"}}}},
		{name: "unsorted, unset", in: []contract.FailureDomain{{Name: "b"}, {Name: "a", ControlPlane: new(true)}},
			want: conversion.FailureDomainsStash{Order: []string{"b", "a"}, UnsetControlPlane: []string{"b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, stash, err := conversion.FailureDomainsToV1Beta1(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, stash)
			back, err := conversion.FailureDomainsToV1Beta2(m, stash)
			require.NoError(t, err)
			assert.Equal(t, tt.in, back)
		})
	}
}

func TestFailureDomainsErrors(t *testing.T) {
	many := make([]contract.FailureDomain, conversion.MaxFailureDomains+1)
	manyMap := map[string]conversion.V1Beta1FailureDomain{}
	for i := range many {
		many[i].Name = strings.Repeat("x", i+1)
		manyMap[many[i].Name] = conversion.V1Beta1FailureDomain{}
	}
	long := strings.Repeat("z", 257)
	tests := []struct {
		name    string
		list    []contract.FailureDomain
		m       map[string]conversion.V1Beta1FailureDomain
		wantErr string
	}{
		{name: "empty name in list", list: []contract.FailureDomain{{Name: "a"}, {}}, wantErr: "cannot convert failure domains: item 1: name must not be empty"},
		{name: "duplicate", list: []contract.FailureDomain{{Name: "a"}, {Name: "a"}}, wantErr: `item 1: duplicate name "a"`},
		{name: "long name in list", list: []contract.FailureDomain{{Name: long}}, wantErr: "name of 257 bytes, more than 256"},
		{name: "too many in list", list: many, wantErr: "cannot convert failure domains: 101, more than 100"},
		{name: "empty name in map", m: map[string]conversion.V1Beta1FailureDomain{"": {}}, wantErr: `cannot convert failure domain "": name must not be empty`},
		{name: "long name in map", m: map[string]conversion.V1Beta1FailureDomain{long: {}}, wantErr: "name of 257 bytes, more than 256"},
		{name: "too many in map", m: manyMap, wantErr: "cannot convert failure domains: 101, more than 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.m != nil {
				_, err = conversion.FailureDomainsToV1Beta2(tt.m, conversion.FailureDomainsStash{})
			} else {
				_, _, err = conversion.FailureDomainsToV1Beta1(tt.list)
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
	got, err := conversion.FailureDomainsToV1Beta2(map[string]conversion.V1Beta1FailureDomain{"a": {}, "b": {}},
		conversion.FailureDomainsStash{Order: []string{"b", "c"}, UnsetControlPlane: []string{"a"}})
	require.NoError(t, err)
	assert.Equal(t, []contract.FailureDomain{{Name: "a"}, {Name: "b", ControlPlane: new(false)}}, got, "a stale order is ignored")
}

func TestConditionsRoundTrip(t *testing.T) {
	now := metav1.Now().Rfc3339Copy()
	tests := []struct {
		name string
		v1   []conversion.V1Beta1Condition
		v2   []metav1.Condition // what v1 converts to
	}{
		{name: "nil"},
		{name: "defaults lose nothing",
			v1: []conversion.V1Beta1Condition{{Type: "Ready", Status: corev1.ConditionFalse, Severity: conversion.SeverityInfo, Reason: "Booting", Message: "m", LastTransitionTime: now},
				{Type: "A", Status: corev1.ConditionTrue}},
			v2: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Booting", Message: "m", LastTransitionTime: now},
				{Type: "A", Status: metav1.ConditionTrue, Reason: conversion.NoReasonReported}}},
		{name: "severity and bad reasons",
			v1: []conversion.V1Beta1Condition{{Type: "Ready", Status: corev1.ConditionFalse, Severity: conversion.SeverityNone, Reason: "not camel"},
				{Type: "B", Status: corev1.ConditionTrue, Severity: conversion.SeverityWarning, Reason: strings.Repeat("R", 1025)}},
			v2: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: conversion.NoReasonReported},
				{Type: "B", Status: metav1.ConditionTrue, Reason: conversion.NoReasonReported}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v2, lost, err := conversion.ConditionsToV1Beta2(tt.v1, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.v2, v2)
			back, lost2, err := conversion.ConditionsToV1Beta1(v2, lost)
			require.NoError(t, err)
			assert.Nil(t, lost2)
			assert.Equal(t, tt.v1, back)
		})
	}
}

func TestConditionsObservedGeneration(t *testing.T) {
	v2 := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 3, Reason: "Up"}}
	v1, lost, err := conversion.ConditionsToV1Beta1(v2, nil)
	require.NoError(t, err)
	assert.Equal(t, conversion.ConditionsStash{"Ready": {Status: corev1.ConditionTrue, ObservedGeneration: 3}}, lost)
	back, _, err := conversion.ConditionsToV1Beta2(v1, lost)
	require.NoError(t, err)
	assert.Equal(t, v2, back)

	v1[0].Status = corev1.ConditionFalse // changed since: the stash no longer applies
	back, _, err = conversion.ConditionsToV1Beta2(v1, lost)
	require.NoError(t, err)
	assert.Zero(t, back[0].ObservedGeneration)
}

func TestConditionsErrors(t *testing.T) {
	tests := []struct {
		name    string
		v1      []conversion.V1Beta1Condition
		v2      []metav1.Condition
		wantErr string
	}{
		{name: "v1 empty type", v1: []conversion.V1Beta1Condition{{Type: "A"}, {}}, wantErr: "cannot convert condition 1: type must not be empty"},
		{name: "v1 duplicate", v1: []conversion.V1Beta1Condition{{Type: "A"}, {Type: "A"}}, wantErr: `cannot convert condition 1: duplicate type "A"`},
		{name: "v1 too many", v1: make([]conversion.V1Beta1Condition, conversion.MaxConditions+1), wantErr: "cannot convert conditions: 65, more than 64"},
		{name: "v2 empty type", v2: []metav1.Condition{{}}, wantErr: "cannot convert condition 0: type must not be empty"},
		{name: "v2 duplicate", v2: []metav1.Condition{{Type: "A"}, {Type: "A"}}, wantErr: `duplicate type "A"`},
		{name: "v2 too many", v2: make([]metav1.Condition, conversion.MaxConditions+1), wantErr: "65, more than 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.v1 != nil {
				_, _, err = conversion.ConditionsToV1Beta2(tt.v1, nil)
			} else {
				_, _, err = conversion.ConditionsToV1Beta1(tt.v2, nil)
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

// The dual package's FooMachine satisfies the InfraMachineObject constraint with its hand-written
// IsProvisioned and SetProvisioned and the other accessors generated.
var _ contract.InfraMachineObject = (*dual.FooMachine)(nil)

func TestDualProvisioned(t *testing.T) {
	tests := []struct {
		name  string
		ready bool
		init  *bool
		want  bool
	}{
		{"neither", false, nil, false},
		{"an older release set ready", true, nil, true},
		{"provisioned only", false, new(true), true},
		{"both", true, new(true), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m dual.FooMachine
			m.Status.Ready, m.Status.Initialization.Provisioned = tt.ready, tt.init
			assert.Equal(t, tt.want, m.IsProvisioned())
			for _, v := range []bool{true, false} {
				m.SetProvisioned(v)
				assert.Equal(t, v, m.Status.Ready)
				assert.Equal(t, new(v), m.Status.Initialization.Provisioned)
				assert.Equal(t, v, m.IsProvisioned())
			}
		})
	}
}

// TestDualAccessorsFresh fails when the dual package's accessors are not those `capkit generate accessors`
// writes now; the generator leaves the hand-written IsProvisioned and SetProvisioned alone.
func TestDualAccessorsFresh(t *testing.T) {
	const dir = "internal/testapi/dual"
	got, err := accessorgen.Generate(dir, accessorgen.DefaultOutput)
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(dir, accessorgen.DefaultOutput))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "run make generate")
	assert.NotContains(t, string(got), "Provisioned")
}

// The largest failure domain list the contract's schema allows, out of order and with controlPlane unset, fits in
// one stash with room to spare.
func TestTheLargestFailureDomainStashFits(t *testing.T) {
	var domains []contract.FailureDomain
	for i := 99; i >= 0; i-- {
		domains = append(domains, contract.FailureDomain{Name: fmt.Sprintf("%03d", i) + strings.Repeat("z", 253)})
	}
	m, stash, err := conversion.FailureDomainsToV1Beta1(domains)
	require.NoError(t, err)
	require.Len(t, m, 100)
	obj := &metav1.ObjectMeta{Namespace: "ns", Name: "c"}
	require.NoError(t, conversion.Stash(obj, stash))
	assert.Less(t, len(obj.Annotations[conversion.StashAnnotation]), conversion.MaxStashSize/2)
	var restored conversion.FailureDomainsStash
	found, err := conversion.Restore(obj, &restored)
	require.NoError(t, err)
	require.True(t, found)
	back, err := conversion.FailureDomainsToV1Beta2(m, restored)
	require.NoError(t, err)
	assert.Equal(t, domains, back)
}
