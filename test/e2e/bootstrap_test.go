package e2e_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/cloudinit"
	"github.com/capkit/capkit/cloudinit/cloudinittest"
)

// The files the KubeadmConfigs ask for, one per encoding CABPK supports, with content that would break a
// naive shell rendering (a heredoc delimiter, quotes, $ expansions).
const (
	plainContent = "control-plane\nEOF\n'$HOME' \"$(id)\"\n"
	b64Content   = "hello $USER\n"
	gzipContent  = "compressed `uname -a`\nEOF\n"
)

// controlPlaneConfig asks CABPK for every cloud-init module it can emit: files in each encoding, boot,
// pre- and post-kubeadm commands, a user, NTP, a disk with a file system and a mount, and a node name that
// is a jinja variable, as most providers' templates have.
func controlPlaneConfig() bootstrapv1.KubeadmConfigSpec {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write([]byte(gzipContent))
	_ = w.Close()
	return bootstrapv1.KubeadmConfigSpec{
		InitConfiguration: bootstrapv1.InitConfiguration{NodeRegistration: bootstrapv1.NodeRegistrationOptions{
			Name: "{{ ds.meta_data.local_hostname }}"}},
		Files: []bootstrapv1.File{
			{Path: "/etc/capkit/plain", Content: plainContent, Permissions: "0600", Owner: "root:root"},
			{Path: "/etc/capkit/b64", Content: base64.StdEncoding.EncodeToString([]byte(b64Content)), Encoding: bootstrapv1.Base64},
			{Path: "/etc/capkit/gz", Content: base64.StdEncoding.EncodeToString(gz.Bytes()), Encoding: bootstrapv1.GzipBase64},
		},
		BootCommands:        []string{"echo boot"},
		PreKubeadmCommands:  []string{"echo pre-kubeadm > /tmp/pre"},
		PostKubeadmCommands: []string{"echo post-kubeadm"},
		Users: []bootstrapv1.User{{Name: "capkit", Groups: "adm", Shell: "/bin/bash", Sudo: "ALL=(ALL) NOPASSWD:ALL",
			LockPassword: ptr.To(true), SSHAuthorizedKeys: []string{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2e capkit@e2e"}}},
		NTP: bootstrapv1.NTP{Enabled: ptr.To(true), Servers: []string{"time.example.com"}},
		DiskSetup: bootstrapv1.DiskSetup{
			Partitions:  []bootstrapv1.Partition{{Device: "/dev/vdb", Layout: ptr.To(true), TableType: "gpt", Overwrite: ptr.To(false)}},
			Filesystems: []bootstrapv1.Filesystem{{Device: "/dev/vdb1", Filesystem: "ext4", Label: "etcd_disk"}},
		},
		Mounts: []bootstrapv1.MountPoints{{"LABEL=etcd_disk", "/var/lib/etcddisk"}},
	}
}

// workerConfig is the KubeadmConfigTemplate spec of the workers: a jinja node name and one file.
func workerConfig() bootstrapv1.KubeadmConfigSpec {
	return bootstrapv1.KubeadmConfigSpec{
		JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: bootstrapv1.NodeRegistrationOptions{
			Name: "{{ ds.meta_data.local_hostname }}"}},
		Files: []bootstrapv1.File{{Path: "/etc/capkit/plain", Content: plainContent}},
	}
}

// bootstrapSecret returns the bootstrap data Secret Cluster API recorded in the Machine.
func bootstrapSecret(ctx context.Context, t *testing.T, m *clusterv1.Machine) *corev1.Secret {
	t.Helper()
	require.NotNil(t, m.Spec.Bootstrap.DataSecretName, "Machine %q has bootstrap data", m.Name)
	s := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: *m.Spec.Bootstrap.DataSecretName}, s))
	assert.Equal(t, "cloud-config", string(s.Data["format"]))
	return s
}

// assertBootstrapRenders parses CABPK's data strictly with the machine's host name as jinja variable,
// renders it to bash, runs the script in a sandbox (files under a root folder, system commands recorded)
// and checks the result: every file written with its decoded content, the kubeadm command recorded, the
// sentinel written. It returns the top-level modules of the data, sorted.
func assertBootstrapRenders(t *testing.T, data []byte, hostname, kubeadmCmd string) []string {
	t.Helper()
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(data, &doc), "CABPK writes one YAML document")
	modules := make([]string, 0, len(doc))
	for k := range doc {
		modules = append(modules, k)
	}
	slices.Sort(modules)

	cfg, err := cloudinit.Parse(data, cloudinit.WithVariables(map[string]string{"local_hostname": hostname}))
	require.NoError(t, err, "strict parsing of CABPK's data")
	assert.Empty(t, cfg.Skipped)
	assert.Equal(t, cloudinit.KindCloudConfig, cfg.Kind)
	assert.True(t, cfg.Jinja, "CABPK's data is a jinja template")

	dir := t.TempDir()
	root, dryRun := filepath.Join(dir, "root"), filepath.Join(dir, "commands.log")
	script, err := cloudinit.Render(cfg, cloudinit.WithRoot(root), cloudinit.WithDryRun(dryRun))
	require.NoError(t, err)
	path := filepath.Join(dir, "bootstrap.sh")
	require.NoError(t, os.WriteFile(path, script, 0o700))
	out, err := exec.Command("bash", path).CombinedOutput()
	require.NoError(t, err, "the rendered script runs: %s", out)

	for _, f := range cfg.WriteFiles {
		got, err := os.ReadFile(filepath.Join(root, f.Path))
		require.NoError(t, err, "%s is written", f.Path)
		assert.Equal(t, string(f.Content), string(got), "content of %s", f.Path)
	}
	plain, err := os.ReadFile(filepath.Join(root, "/etc/capkit/plain"))
	require.NoError(t, err)
	assert.Equal(t, plainContent, string(plain), "content is written byte for byte, nothing expanded")
	kubeadmFile := "/run/kubeadm/kubeadm.yaml"
	if kubeadmCmd == "kubeadm join" {
		kubeadmFile = "/run/kubeadm/kubeadm-join-config.yaml"
	}
	kubeadmYAML, err := os.ReadFile(filepath.Join(root, kubeadmFile))
	require.NoError(t, err)
	assert.Contains(t, string(kubeadmYAML), "name: '"+hostname+"'", "the jinja node name is replaced by the host name")
	assert.NotContains(t, string(kubeadmYAML), "{{")
	recorded, err := os.ReadFile(dryRun)
	require.NoError(t, err)
	assert.Contains(t, string(recorded), strings.ReplaceAll(kubeadmCmd, " ", `\ `), "the kubeadm command is recorded, not run")
	sentinel, err := os.ReadFile(filepath.Join(root, cloudinit.DefaultSentinel))
	require.NoError(t, err, "the sentinel is written after every step succeeded")
	assert.Equal(t, "success\n", string(sentinel))

	// The same data as a machine runs it: real paths, as root, in a bubblewrap sandbox with kubeadm and the
	// host-changing commands stubbed.
	machineScript, err := cloudinit.Render(cfg)
	require.NoError(t, err)
	sb := cloudinittest.RunInBubblewrap(t, machineScript)
	for _, f := range cfg.WriteFiles {
		assert.Equal(t, string(f.Content), string(sb.ReadFile(t, f.Path)), "content of %s in the sandbox", f.Path)
	}
	assert.Equal(t, "success\n", string(sb.ReadFile(t, cloudinit.DefaultSentinel)), "the sentinel, in the sandbox")
	assert.True(t, slices.ContainsFunc(sb.Calls(t), func(c string) bool { return strings.HasPrefix(c, kubeadmCmd+" ") }),
		"%s is called in the sandbox: %q", kubeadmCmd, sb.Calls(t))

	if kubeadmCmd == "kubeadm init" {
		b64, err := os.ReadFile(filepath.Join(root, "/etc/capkit/b64"))
		require.NoError(t, err)
		assert.Equal(t, b64Content, string(b64))
		gz, err := os.ReadFile(filepath.Join(root, "/etc/capkit/gz"))
		require.NoError(t, err)
		assert.Equal(t, gzipContent, string(gz), "gzip+base64 content is decoded and gunzipped")
		require.Len(t, cfg.Users, 1)
		assert.Equal(t, "capkit", cfg.Users[0].Name)
		require.NotNil(t, cfg.NTP)
		assert.Equal(t, []string{"time.example.com"}, cfg.NTP.Servers)
		assert.Len(t, cfg.DiskSetup, 1)
		assert.Len(t, cfg.FSSetup, 1)
		assert.Len(t, cfg.Mounts, 1)
		assert.NotEmpty(t, cfg.BootCmd)
	}
	return modules
}
