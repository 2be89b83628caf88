package capienv_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/capkit/capkit/test/internal/capienv"
)

// A client of the proxy needs no credentials, its watches stream, and each of its requests is counted once, by
// the verb the API server's audit log would give it.
func TestProxyCountsRequestsByVerb(t *testing.T) {
	env := startAPIServer(t)
	p, err := capienv.StartProxy(env.Config)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	kc, err := capienv.Kubeconfig(p.Config, "proxy")
	require.NoError(t, err)
	assert.NotContains(t, string(kc), "client-key", "the proxy's kubeconfig holds no credentials")

	cs, err := kubernetes.NewForConfig(p.Config)
	require.NoError(t, err)
	ctx := t.Context()
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	defer w.Stop()
	cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "counted"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	select {
	case ev := <-w.ResultChan():
		assert.Equal(t, "counted", ev.Object.(*corev1.ConfigMap).Name, "the watch streams through the proxy")
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event through the proxy")
	}
	_, err = cs.CoreV1().ConfigMaps("default").Get(ctx, "counted", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	cm.Data = map[string]string{"k": "v"}
	_, err = cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, cs.CoreV1().ConfigMaps("default").Delete(ctx, "counted", metav1.DeleteOptions{}))
	_, err = cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	require.NoError(t, err)

	assert.Equal(t, map[string]int{"watch": 1, "create": 1, "get": 2, "list": 1, "update": 1, "delete": 1}, p.Requests.ByVerb())
	assert.Equal(t, 7, p.Requests.Total())
	assert.Equal(t, 3, p.Requests.Writes())
	p.Requests.Reset()
	assert.Zero(t, p.Requests.Total())

	// A request with stolen-looking credentials is still made as the proxy's administrator, never with them.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.Config.Host+"/api/v1/namespaces/default", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer not-a-token")
	hc, err := rest.HTTPClientFor(p.Config)
	require.NoError(t, err)
	res, err := hc.Do(req)
	require.NoError(t, err)
	_ = res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
}
