package lifecycle

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestReadyOf(t *testing.T) {
	cond := func(typ, status, reason string) any {
		return map[string]any{"type": typ, "status": status, "reason": reason}
	}
	obj := func(conds ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": conds}}}
	}
	deleting := obj()
	now := metav1.Now()
	deleting.SetDeletionTimestamp(&now)
	tests := []struct {
		name string
		u    *unstructured.Unstructured
		want string
	}{
		{"no conditions", obj(), "-"},
		{"ready", obj(cond("Ready", "True", "Ready"), cond("PodReady", "True", "Ready")), "True"},
		{"the step that is not ready names the reason", obj(cond("BootstrapSecretReady", "True", "Ready"), cond("PodReady", "False", "PodPending"),
			cond("Ready", "False", "NotReady")), "False/PodPending"},
		{"no step condition", obj(cond("Ready", "Unknown", "Waiting")), "Unknown/Waiting"},
		{"deleting", deleting, "Deleting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, readyOf(tt.u)) })
	}
}

func TestRenderTable(t *testing.T) {
	var b strings.Builder
	renderTable(&b, []Row{{Name: "c1", Kind: "PodCluster", Provisioned: "true", Endpoint: "10.0.0.1:6443", Ready: "True", Detail: "2 objects"}}, "TARGET")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	assert.Equal(t, []string{"NAME", "KIND", "PROVISIONED", "ENDPOINT/PROVIDER-ID", "READY", "TARGET"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"c1", "PodCluster", "true", "10.0.0.1:6443", "True", "2", "objects"}, strings.Fields(lines[1]))
}
