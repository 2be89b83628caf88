package kubeobjects_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/internal/logtest"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/kubeobjects"
)

const secretData = "bootstrap-script-that-must-never-be-logged"

// TestSecretsAreNotLogged creates, reads, finds, updates and deletes Secrets with a logger at verbosity 100
// in the context: client-go logs every other object's bodies through it, and nothing of a Secret's data.
func TestSecretsAreNotLogged(t *testing.T) {
	ns := env.Namespace(t, "kubeobjects")
	var logs strings.Builder
	ctx := logr.NewContext(t.Context(), funcr.New(func(prefix, args string) { logs.WriteString(prefix + " " + args + "\n") }, funcr.Options{Verbosity: 100}))
	r, err := kubeobjects.New(env.Client, kubeobjects.Kind[string, *corev1.Secret]{
		Object:    &corev1.Secret{},
		List:      &corev1.SecretList{},
		Namespace: ns,
		Build: func(value string) (*corev1.Secret, error) {
			return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "boot"}, Data: map[string][]byte{"script": []byte(value)}}, nil
		},
		Mutate: func(value string, s *corev1.Secret) ([]string, bool) {
			if string(s.Data["script"]) == value {
				return nil, false
			}
			s.Data["script"] = []byte(value)
			return []string{"data.script"}, false
		},
	})
	require.NoError(t, err)
	tags := ensure.OwnershipTags("owner", "boot")

	created, err := r.Create(ctx, secretData, "", tags)
	require.NoError(t, err)
	_, err = r.Create(ctx, secretData, "", tags) // exists: read back
	require.NoError(t, err)
	id := r.ID(created)
	got, found, err := r.Get(ctx, id)
	require.NoError(t, err)
	require.True(t, found)
	_, found, err = r.FindByTags(ctx, tags)
	require.NoError(t, err)
	require.True(t, found)
	_, err = r.(ensure.Updater[string, *corev1.Secret]).Update(ctx, id, "updated-"+secretData, got)
	require.NoError(t, err)
	require.NoError(t, r.Delete(ctx, id))

	// The same context on another kind: its bodies are logged, so the test would see a Secret's.
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{}))
	out := logs.String()
	require.Contains(t, out, `"msg"="Response Body"`)
	require.Contains(t, logtest.FromHexDumps(out), ns, "the Namespace's body is in the logs")
	for _, form := range []string{secretData, base64.StdEncoding.EncodeToString([]byte(secretData))} {
		assert.False(t, strings.Contains(out, form), "the logs show %q", form)
		assert.False(t, strings.Contains(logtest.FromHexDumps(out), form), "a hex dump in the logs holds %q", form)
	}
}
