package reconcile_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/logtest"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// joinToken is the kubeadm bootstrap token in userData; joinSecret its secret part.
const (
	joinToken  = "abcdef.0123456789abcdef"
	joinSecret = "0123456789abcdef"
	userData   = `#cloud-config
write_files:
- path: /run/kubeadm/kubeadm-join-config.yaml
  content: |
    discovery:
      bootstrapToken:
        token: ` + joinToken + `
        apiServerEndpoint: 10.0.0.1:6443
runcmd:
- kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml
`
)

// errCloud is what every error of echoCloud wraps, to check that redaction keeps the chain.
var errCloud = errors.New("cloud error")

// echoCloud is a fake cloud whose Create fails with err, typically a message that echoes the user data.
type echoCloud struct {
	*fakecloud.Cloud
	err error
}

func (c echoCloud) Create(context.Context, fakecloud.Spec, string, map[string]string) (*fakecloud.Net, error) {
	return nil, c.err
}

// base64Run is text that may be base64.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{12,}`)

// leaks returns the forms of the join token found in s: as it is, its secret part, in base64 at any
// alignment (truncated or not), or in a hex dump of a protobuf body.
func leaks(s string) []string {
	var found []string
	if strings.Contains(s, joinSecret) {
		found = append(found, "the token's secret")
	}
	for _, run := range base64Run.FindAllString(s, -1) {
		for skip := range 4 {
			r := run[skip:]
			b, _ := base64.RawStdEncoding.DecodeString(r[:len(r)/4*4])
			if strings.Contains(string(b), joinSecret[:12]) {
				found = append(found, "base64: "+run)
			}
		}
	}
	if strings.Contains(logtest.FromHexDumps(s), joinSecret) {
		found = append(found, "a hex dump")
	}
	return found
}

// TestCloudErrorsEchoingBootstrapDataAreRedacted: a cloud whose Create error echoes the user data (whole, in
// base64, or just the token's line) must not put the bootstrap token into the step condition, the Ready
// summary, the events (events.k8s.io, as the API server stores them), the log lines at verbosity 100 (the
// service's own and client-go's) or the returned error; a message without secrets reaches them unchanged.
func TestCloudErrorsEchoingBootstrapDataAreRedacted(t *testing.T) {
	tokenLine := "        token: " + joinToken
	tests := []struct {
		name     string
		err      error
		terminal bool
		clean    bool // the message holds no secret: unchanged everywhere
	}{
		{name: "whole user data", err: fmt.Errorf("%w: InvalidUserData: %s", errCloud, userData)},
		{name: "user data in base64", err: fmt.Errorf("%w: InvalidUserData: %s", errCloud, base64.StdEncoding.EncodeToString([]byte(userData)))},
		{name: "truncated base64", err: fmt.Errorf("%w: InvalidUserData: %s...", errCloud, base64.StdEncoding.EncodeToString([]byte(userData))[:180])},
		{name: "just the token line", err: fmt.Errorf("%w: line 6: %q: unknown field", errCloud, tokenLine)},
		{name: "terminal, whole user data", err: step.Terminal("InvalidUserData", fmt.Errorf("%w: %s", errCloud, userData)), terminal: true},
		{name: "no secret", err: fmt.Errorf("%w: quota exceeded for instances in zone \"z1\"", errCloud), clean: true},
	}
	clientset, err := kubernetes.NewForConfig(env.Config)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.Namespace(t, "rec")
			ctx := context.Background()
			broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: clientset.EventsV1()})
			require.NoError(t, broadcaster.StartRecordingToSinkWithContext(ctx))
			t.Cleanup(broadcaster.Shutdown)
			require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m1-data"},
				Data: map[string][]byte{"value": []byte(userData)}}))
			obj := newFooMachine(t, ns, true, "m1-data")

			cloud := echoCloud{Cloud: fakecloud.New(), err: tt.err}
			vm := reconcile.ServiceFuncs[machineScope]{ReconcileFunc: func(ctx context.Context, s machineScope) (step.Result, error) {
				data, _, err := s.BootstrapData(ctx)
				if err != nil {
					return step.Result{}, err
				}
				log := ctrl.LoggerFrom(ctx)
				log.V(100).Info("creating the VM", "userData", string(data)) // a careless provider
				_, err = ensure.Exists(ctx, s, "vm", cloud, ensure.Given(fakecloud.Spec{CIDR: "x"}))
				if err != nil {
					log.Error(err, "create failed", "cloudMessage", err.Error())
					step.Eventf(ctx, step.EventWarning, "CreateFailed", "the cloud said: %v", err)
				}
				return step.Result{Done: err == nil}, err
			}}
			r, err := reconcile.NewMachineReconcilerFor(env.Client, &testtypes.FooMachine{},
				[]reconcile.Step[machineScope]{{Name: "VM", Service: vm}},
				reconcile.WithEventRecorder(broadcaster.NewRecorder(env.Scheme, "capkit-test")),
				reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
			require.NoError(t, err)

			var logs logtest.Sink
			_, recErr := r.Reconcile(ctrl.LoggerInto(ctx, logs.Logger()), req(obj))

			// What a user sees: conditions, events, logs, the error controller-runtime logs.
			got := get(t, &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: obj.Name}})
			var seen []string
			for _, c := range got.Status.Conditions {
				seen = append(seen, c.Type+": "+c.Message)
			}
			list := &eventsv1.EventList{}
			require.Eventually(t, func() bool {
				return env.Client.List(ctx, list, client.InNamespace(ns)) == nil && len(list.Items) >= 2
			}, 30*time.Second, 50*time.Millisecond, "the step's event and the reconciler's Warning reach the API server")
			for _, e := range list.Items {
				seen = append(seen, "event "+e.Reason+": "+e.Note)
			}
			if tt.terminal {
				require.NoError(t, recErr, "a terminal error is not returned")
			} else {
				require.Error(t, recErr)
				assert.ErrorIs(t, recErr, errCloud, "the chain is kept")
				seen = append(seen, "returned error: "+recErr.Error())
			}
			seen = append(seen, "logs: "+logs.String())
			require.Contains(t, logs.String(), "creating the VM")

			for _, s := range seen {
				assert.Empty(t, leaks(s), "%.300s", s)
			}
			vmReady, ready := conditionMessage(got, "VMReady"), conditionMessage(got, "Ready")
			if !tt.clean {
				assert.Contains(t, vmReady, "[REDACTED]")
				assert.Contains(t, ready, "[REDACTED]", "the Ready summary carries the redacted message")
				return
			}
			want := `cannot create resource "vm": cloud error: quota exceeded for instances in zone "z1"`
			assert.Equal(t, want, vmReady)
			assert.Contains(t, ready, want)
			assert.Equal(t, want, recErr.Error())
			assert.Contains(t, seen, "event TransientError: VMReady: "+want)
			assert.Contains(t, seen, "event CreateFailed: the cloud said: "+want)
			assert.Contains(t, logs.String(), `"cloudMessage"="`+strings.ReplaceAll(want, `"`, `\"`)+`"`)
		})
	}
}

func conditionMessage(m *testtypes.FooMachine, t string) string {
	for _, c := range m.Status.Conditions {
		if c.Type == t {
			return c.Message
		}
	}
	return ""
}
