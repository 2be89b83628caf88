package services_test

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/cloudinit"
	"github.com/capkit/capkit/cloudinit/cloudinittest"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/providertest/servicetest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// joinToken is the secret of the bootstrap data: it may be in the Secret only base64-encoded.
const joinToken = "abcdef.0123456789abcdef"

// hostnameVar is the jinja variable the kubeadm bootstrap provider names nodes with.
const hostnameVar = "{{ ds.meta_data.local_hostname }}"

// joinConfig is the kubeadm JoinConfiguration the bootstrap data writes, a jinja template: see
// renderedJoinConfig.
const joinConfig = `---
apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: 10.96.0.10:6443
    token: ` + joinToken + `
    unsafeSkipCAVerification: true
nodeRegistration:
  name: '` + hostnameVar + `'
  criSocket: unix:///run/containerd/containerd.sock
`

// renderedJoinConfig is joinConfig as the Pod of machine host writes it.
func renderedJoinConfig(host string) string { return strings.ReplaceAll(joinConfig, hostnameVar, host) }

// joinConfigPath is where the bootstrap data writes joinConfig, as the kubeadm bootstrap provider does.
const joinConfigPath = "/run/kubeadm/kubeadm-join-config.yaml"

// joinData is kubeadm join bootstrap data as the kubeadm bootstrap provider writes it (a jinja template, the
// JoinConfiguration in write_files, kubeadm join and the sentinel in runcmd).
var joinData = "## template: jinja\n#cloud-config\n" +
	"write_files:\n" +
	"-   path: " + joinConfigPath + "\n" +
	"    owner: root:root\n" +
	"    permissions: '0640'\n" +
	"    content: |\n" + indent(joinConfig, "      ") +
	"-   path: /run/cluster-api/placeholder\n" +
	"    owner: root:root\n" +
	"    permissions: '0640'\n" +
	"    content: |\n" +
	"      This placeholder file is used to create the /run/cluster-api sub directory\n" +
	"runcmd:\n" +
	"  - 'kubeadm join --config " + joinConfigPath + "  && echo success > " + cloudinit.DefaultSentinel + "'\n"

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

// machineEnv is a target namespace with the ServiceAccount of Cluster "c1", and the machine steps on it.
type machineEnv struct {
	ns        string
	bootstrap *services.Bootstrap
	pod       *services.Pod
}

func newMachineEnv(t testing.TB) *machineEnv {
	t.Helper()
	ns := env.Namespace(t, "podcloud")
	createServiceAccount(t, ns, services.ServiceAccountName(clusterName))
	lookup := lookupIn(ns)
	b, err := services.NewBootstrap(env.Client, lookup)
	require.NoError(t, err)
	p, err := services.NewPod(env.Client, env.Client, lookup)
	require.NoError(t, err)
	return &machineEnv{ns: ns, bootstrap: b, pod: p}
}

// secretOf returns the bootstrap Secret of a machine scope, when it exists.
func (e *machineEnv) secretOf(t testing.TB, s machineFake) (*corev1.Secret, bool) {
	t.Helper()
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: services.SecretName(s.Object.Name)}}
	return sec, exists(t, sec)
}

func TestBootstrapCases(t *testing.T) {
	e := newMachineEnv(t)
	newService := func(*testing.T) (reconcile.Service[scope.MachineScoper[*v1beta2.PodMachine]], *machineEnv) {
		return e.bootstrap, e
	}
	noSecret := func(t *testing.T, s machineFake, e *machineEnv) {
		_, ok := e.secretOf(t, s)
		assert.False(t, ok, "no Secret")
	}
	steady := machineScope("m-steady")
	preMachine(t, e.bootstrap, steady, &done)
	deleted := machineScope("m-deleted")
	preMachine(t, e.bootstrap, deleted, &done)
	badData := "#cloud-config\nwrite_files:\n- path: relative/" + joinToken + "\n  content: " + joinToken + "\n"

	servicetest.RunMachineCases(t, newService, []servicetest.MachineCase[*v1beta2.PodMachine, *machineEnv]{
		{
			Name: "creates the immutable Secret with the rendered script and the entrypoint", Scope: machineScope("m-0"),
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s machineFake, e *machineEnv) {
				sec, ok := e.secretOf(t, s)
				require.True(t, ok)
				assert.Equal(t, boolPtr(true), sec.Immutable)
				assert.Equal(t, corev1.SecretTypeOpaque, sec.Type)
				assert.Equal(t, e.ns+"/"+sec.Name+"/"+string(sec.UID), s.Object.Status.Resources[services.KeyBootstrap])
				assert.Equal(t, clusterName, sec.Labels[services.LabelCluster])
				assert.Equal(t, "key-m-0", sec.Labels[ensure.TagOwnershipKey])
				assert.Equal(t, services.KeyBootstrap, sec.Labels[ensure.TagResourceKey])
				assert.Len(t, sec.Data, 2)
				assert.Equal(t, services.Entrypoint, string(sec.Data[services.EntrypointFile]))
				script := string(sec.Data[services.BootstrapFile])
				assert.True(t, strings.HasPrefix(script, "#!"), "a script: %.40q", script)
				assert.NotContains(t, script, joinToken, "the file contents are not in clear")
				assert.Contains(t, strings.ReplaceAll(script, "\n", ""), base64.StdEncoding.EncodeToString([]byte(renderedJoinConfig("m-0"))),
					"but base64-encoded")
				assert.Equal(t, 1, s.BootstrapReads)
			},
		},
		{
			Name: "a steady-state reconcile does not read the bootstrap data again", Scope: steady,
			Setup: func(_ *testing.T, s machineFake, _ *machineEnv) { s.BootstrapErr = errBootstrapReadAgain },
			Want:  servicetest.Outcome{Result: done, Unchanged: true},
			Check: func(t *testing.T, s machineFake, _ *machineEnv) {
				assert.Equal(t, 1, s.BootstrapReads, "read once, to create")
			},
		},
		{
			Name: "waits while the PodCluster has no service account", Scope: machineScope("m-wait", ofCluster(clusterWithoutServiceAccount)),
			Want: servicetest.Outcome{Unchanged: true, Result: step.Result{Reason: services.ReasonWaitingForPodCluster,
				Message: "the PodCluster's service account is not recorded yet"}},
			Check: func(t *testing.T, s machineFake, e *machineEnv) {
				noSecret(t, s, e)
				assert.Zero(t, s.BootstrapReads)
			},
		},
		{
			Name: "bootstrap data not ready: retried, no Secret", Scope: machineScope("m-notready", withData("")), Check: noSecret,
			Want: servicetest.Outcome{Class: reconcile.ClassTransient, ErrorIs: scope.ErrBootstrapDataNotReady, Unchanged: true},
		},
		{
			Name: "ignition is refused", Check: noSecret,
			Scope: func() machineFake {
				s := machineScope("m-ignition", withData(`{"ignition":{"version":"3.4.0"}}`))
				s.BootstrapFormat = scope.BootstrapFormatIgnition
				return s
			}(),
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: services.ReasonUnsupportedBootstrapFormat, ErrorContains: "ignition", Unchanged: true},
		},
		{
			Name: "invalid cloud-config is terminal and its values are not in the error", Scope: machineScope("m-invalid", withData(badData)),
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: services.ReasonInvalidBootstrapData, ErrorContains: "write_files[0].path", Unchanged: true},
			Check: func(t *testing.T, s machineFake, e *machineEnv) {
				noSecret(t, s, e)
				_, err := e.bootstrap.Reconcile(context.Background(), s)
				require.Error(t, err)
				assert.NotContains(t, err.Error(), joinToken)
				assert.NotContains(t, err.Error(), "relative/")
			},
		},
		{
			Name: "YAML that does not parse is terminal", Scope: machineScope("m-yaml", withData("#cloud-config\nwrite_files: [\n  "+joinToken+": {\n")),
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: services.ReasonInvalidBootstrapData, Unchanged: true},
		},
		{
			Name: "deletes the Secret and forgets it", Scope: deleted, Delete: true,
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s machineFake, e *machineEnv) {
				noSecret(t, s, e)
				assert.NotContains(t, s.Object.Status.Resources, services.KeyBootstrap)
			},
		},
	}...)
}

// TestBootstrapDeleteWithoutPodCluster deletes the Secret of a machine whose PodCluster is gone and whose
// recorded ID is lost: it is found by its ownership labels, in any namespace.
func TestBootstrapDeleteWithoutPodCluster(t *testing.T) {
	ctx := t.Context()
	e := newMachineEnv(t)
	s := machineScope("m-orphan")
	preMachine(t, e.bootstrap, s, &done)
	_, ok := e.secretOf(t, s)
	require.True(t, ok)

	orphan, err := services.NewBootstrap(env.Client, noPodCluster)
	require.NoError(t, err)
	s.Object.Status.Resources = nil
	res, err := orphan.Delete(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, done, res)
	_, ok = e.secretOf(t, s)
	assert.False(t, ok)
}

// TestRenderScript covers the formats and errors of RenderScript; the script itself runs in bubblewrap in
// TestRenderedScriptRunsInBubblewrap.
func TestRenderScript(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		format scope.BootstrapFormat
		reason string // the terminal reason, "" when it renders
		// contains is in the error message; missing is neither there nor in the script.
		contains, missing string
	}{
		{name: "kubeadm join cloud-config", data: joinData, format: scope.BootstrapFormatCloudConfig, missing: joinToken},
		{name: "ignition", data: `{"ignition":{}}`, format: scope.BootstrapFormatIgnition, reason: services.ReasonUnsupportedBootstrapFormat, contains: `"ignition"`},
		{name: "no format", data: joinData, reason: services.ReasonUnsupportedBootstrapFormat},
		{name: "unsupported module", data: "#cloud-config\npackages: [" + joinToken + "]\n", format: scope.BootstrapFormatCloudConfig,
			reason: services.ReasonInvalidBootstrapData, contains: `field "packages"`, missing: joinToken},
		{name: "bad permissions", data: "#cloud-config\nwrite_files:\n- path: /etc/x\n  permissions: '0x" + joinToken + "'\n  content: x\n",
			format: scope.BootstrapFormatCloudConfig, reason: services.ReasonInvalidBootstrapData, contains: "write_files[0].permissions", missing: joinToken},
		{name: "not cloud-config", data: "{" + joinToken, format: scope.BootstrapFormatCloudConfig,
			reason: services.ReasonInvalidBootstrapData, contains: "not valid cloud-config", missing: joinToken},
		{name: "undeclared jinja variable", data: "## template: jinja\n#cloud-config\nruncmd: ['echo {{ ds.meta_data.availability_zone }}']\n",
			format: scope.BootstrapFormatCloudConfig, reason: services.ReasonInvalidBootstrapData, missing: "availability_zone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script, err := services.RenderScript([]byte(tt.data), tt.format, "m-0")
			if tt.reason == "" {
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(string(script), "#!/bin/bash\n"))
				if tt.missing != "" {
					assert.NotContains(t, string(script), tt.missing)
				}
				return
			}
			require.Error(t, err)
			assert.Nil(t, script)
			assert.Equal(t, tt.reason, step.TerminalReason(err), "%v", err)
			assert.Contains(t, err.Error(), tt.contains)
			if tt.missing != "" {
				assert.NotContains(t, err.Error(), tt.missing, "the data is secret")
			}
		})
	}
}

// TestRenderedScriptRunsInBubblewrap runs the script a Pod would run, from kubeadm join bootstrap data, as
// root at real paths in a bubblewrap sandbox: the files land with their content and mode, kubeadm join is
// called with the configuration, and the sentinel is written.
func TestRenderedScriptRunsInBubblewrap(t *testing.T) {
	script, err := services.RenderScript([]byte(joinData), scope.BootstrapFormatCloudConfig, "c1-md-0-x7k2p")
	require.NoError(t, err)
	assert.NotContains(t, string(script), "c1-md-0-x7k2p", "the host name is in the file contents, base64-encoded")
	f := filepath.Join(t.TempDir(), services.BootstrapFile)
	require.NoError(t, os.WriteFile(f, script, 0o600))
	out, err := exec.Command(tool(t, "shellcheck"), "--shell=bash", "--severity=style", f).CombinedOutput()
	require.NoError(t, err, "shellcheck:\n%s", out)

	sb := cloudinittest.RunInBubblewrap(t, script)
	assert.Equal(t, renderedJoinConfig("c1-md-0-x7k2p"), string(sb.ReadFile(t, joinConfigPath)), "jinja variables are the host name")
	fi, err := os.Stat(sb.Path(t, joinConfigPath))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
	assert.Equal(t, "This placeholder file is used to create the /run/cluster-api sub directory\n",
		string(sb.ReadFile(t, "/run/cluster-api/placeholder")))
	assert.Equal(t, []string{"kubeadm join --config " + joinConfigPath}, sb.Calls(t))
	assert.Contains(t, string(sb.ReadFile(t, cloudinit.DefaultSentinel)), "success")
}
