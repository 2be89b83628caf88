package contract_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
)

func FuzzFieldAccessors(f *testing.F) {
	f.Add([]byte(`{"status":{"initialization":{"provisioned":true},"failureDomains":[{"name":"a"}]}}`), "status.initialization.provisioned", "x")
	f.Add([]byte(`{"status":{"failureDomains":{"a":{"controlPlane":true}}}}`), "status.failureDomains", "")
	f.Add([]byte(`{"spec":{"controlPlaneEndpoint":{"host":"h","port":6443}}}`), "spec.controlPlaneEndpoint.port", "7")
	f.Add([]byte(`{"spec":"not a map"}`), "spec.controlPlaneEndpoint", "")
	f.Add([]byte(`{"status":{"conditions":[{"type":"Ready","status":"True"}]}}`), "status.conditions", "Ready")
	f.Add([]byte(`{"a":[1,2,{"b":null}]}`), "a.b..c", "")
	f.Add([]byte(`{}`), "", "")
	f.Fuzz(func(t *testing.T, object []byte, path, value string) {
		var obj map[string]any
		if err := json.Unmarshal(object, &obj); err != nil || obj == nil {
			return
		}
		u := &unstructured.Unstructured{Object: obj}
		p := strings.Split(path, ".")
		if path == "" {
			p = nil
		}
		getSet(t, contract.NewField[string](p...), u, value)
		getSet(t, contract.NewField[bool](p...), u, len(value)%2 == 0)
		getSet(t, contract.NewField[int64](p...), u, int64(len(value)))
		getSet(t, contract.NewField[map[string]any](p...), u, map[string]any{"v": value})
		getSet(t, contract.NewField[[]any](p...), u, []any{value})
		getSet(t, contract.NewField[contract.APIEndpoint](p...), u, contract.APIEndpoint{Host: value, Port: 6443})
		getSet(t, contract.NewField[[]metav1.Condition](p...), u, []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: value}})
		for _, v := range contract.Versions {
			fds := contract.InfraCluster(v).FailureDomains()
			_, _ = fds.Get(u)
			_ = fds.Set(u, []contract.FailureDomain{{Name: value}})
			_, _ = contract.InfraCluster(v).Provisioned().Get(u)
			_ = lint.CheckInfraCluster(u, v)
			_ = lint.CheckInfraMachine(u, v)
			_ = lint.CheckBootstrapConfig(u, v)
		}
		_ = u.DeepCopy()
	})
}

// getSet reads and writes one field; a successful Set must be read back by Get.
func getSet[T any](t *testing.T, f contract.Field[T], u *unstructured.Unstructured, value T) {
	t.Helper()
	_, _ = f.Get(u)
	if err := f.Set(u, value); err != nil {
		return
	}
	got, err := f.Get(u)
	if err != nil {
		t.Fatalf("Set %q succeeded but Get fails: %v", f.Path(), err)
	}
	// Compare the JSON values: invalid UTF-8 in value is stored as U+FFFD, as JSON requires.
	var want, have any
	wantJSON, _ := json.Marshal(value)
	haveJSON, _ := json.Marshal(got)
	_ = json.Unmarshal(wantJSON, &want)
	_ = json.Unmarshal(haveJSON, &have)
	if !reflect.DeepEqual(want, have) {
		t.Fatalf("Set %q then Get: want %s, got %s", f.Path(), wantJSON, haveJSON)
	}
}
