package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/internal/reaper"
)

// kwokVersion is the version of KWOK's kwok controller that hack/kwok-binaries.sh builds.
const kwokVersion = "v0.8.0"

// ErrNoNodeAssets is returned when kube-scheduler and kwok cannot be found.
var ErrNoNodeAssets = errors.New("kube-scheduler and kwok not found: run 'make kwok' (hack/kwok-binaries.sh builds them) or set CAPKIT_KWOK_ASSETS")

// fakeNodeAnnotation marks the nodes KWOK plays the kubelet of.
const fakeNodeAnnotation = "kwok.x-k8s.io/node"

// NodeSpec is one fake node: its name and the zone in its topology.kubernetes.io/zone label.
type NodeSpec struct {
	Name, Zone string
}

// FakeNodes is the real kube-scheduler and KWOK's kwok controller running against an Environment: Pods are
// scheduled onto fake nodes, become Running with a pod IP, and their deletions complete, with no container
// runtime. Stop it with Stop.
type FakeNodes struct {
	dir  string
	cmds []*exec.Cmd
	env  *Environment
}

// NodeAssetsDir returns the folder holding kube-scheduler and kwok: $CAPKIT_KWOK_ASSETS, else the cache
// folder that hack/kwok-binaries.sh fills.
func NodeAssetsDir() (string, error) {
	dirs := []string{os.Getenv("CAPKIT_KWOK_ASSETS")}
	if d, err := defaultCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, "kwok", "k8s-"+KubernetesVersion+"-kwok-"+kwokVersion))
	}
	for _, d := range dirs {
		if d != "" && executable(filepath.Join(d, "kube-scheduler")) && executable(filepath.Join(d, "kwok")) &&
			fileExists(filepath.Join(d, "stages.yaml")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("cannot start fake nodes (looked in %q): %w", dirs, ErrNoNodeAssets)
}

// StartFakeNodes starts kube-scheduler and kwok against e and creates the nodes. The processes' output goes
// to files in a temporary folder, named in the errors. Stop them with Stop; e.Stop stops them too.
func (e *Environment) StartFakeNodes(ctx context.Context, nodes ...NodeSpec) (*FakeNodes, error) {
	assets, err := NodeAssetsDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "capkit-nodes-")
	if err != nil {
		return nil, fmt.Errorf("cannot start fake nodes: %w", err)
	}
	if err := reaper.RemoveOnExit(dir); err != nil { // the reaper kills kwok and kube-scheduler, then removes their logs
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("cannot start fake nodes: %w", err)
	}
	f := &FakeNodes{dir: dir, env: e}
	e.nodes = append(e.nodes, f)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(e.Config, kubeconfig); err != nil {
		return nil, errors.Join(err, f.Stop())
	}
	for _, n := range nodes {
		if err := e.Client.Create(ctx, fakeNode(n)); err != nil {
			return nil, errors.Join(fmt.Errorf("cannot create node %q: %w", n.Name, err), f.Stop())
		}
	}
	for _, p := range []struct {
		name string
		args []string
	}{
		{"kube-scheduler", []string{"--kubeconfig=" + kubeconfig, "--leader-elect=false", "--secure-port=0", "-v=1"}},
		{"kwok", []string{"--kubeconfig=" + kubeconfig, "--manage-nodes-with-annotation-selector=" + fakeNodeAnnotation + "=fake",
			"--cidr=10.244.0.0/16", "--node-ip=10.0.0.1", "--config=" + filepath.Join(assets, "stages.yaml")}},
	} {
		if err := f.start(filepath.Join(assets, p.name), p.args...); err != nil {
			return nil, errors.Join(err, f.Stop())
		}
	}
	for _, n := range nodes {
		if err := f.untaintWhenReady(ctx, n.Name); err != nil {
			return nil, errors.Join(err, f.Stop())
		}
	}
	return f, nil
}

// untaintWhenReady waits until kwok reports node Ready and removes the not-ready taint the API server put on
// it at creation: the node lifecycle controller of kube-controller-manager would, and envtest runs none.
func (f *FakeNodes) untaintWhenReady(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		node := &corev1.Node{}
		if err := f.env.Client.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
			return fmt.Errorf("cannot get node %q: %w", name, err)
		}
		if nodeReady(node) {
			kept := node.Spec.Taints[:0]
			for _, t := range node.Spec.Taints {
				if t.Key != corev1.TaintNodeNotReady && t.Key != corev1.TaintNodeUnreachable {
					kept = append(kept, t)
				}
			}
			node.Spec.Taints = kept
			err := f.env.Client.Update(ctx, node)
			switch {
			case err == nil:
				return nil
			case !apierrors.IsConflict(err): // kwok writes the Node too (its status): on a conflict, read it again
				return fmt.Errorf("cannot untaint node %q: %w", name, err)
			}
			continue
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %q not Ready (kwok logs in %s): %w", name, f.Logs("kwok"), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// SetNotReady makes node fail as a lost machine does: KWOK stops playing its kubelet, its Ready condition
// turns Unknown and it is tainted not-ready, as the node lifecycle controller would do. Pods on it stay
// where they are; no new Pod is scheduled onto it.
func (f *FakeNodes) SetNotReady(ctx context.Context, name string) error {
	node := &corev1.Node{}
	if err := f.env.Client.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
		return fmt.Errorf("cannot get node %q: %w", name, err)
	}
	delete(node.Annotations, fakeNodeAnnotation)
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
	if err := f.env.Client.Update(ctx, node); err != nil {
		return fmt.Errorf("cannot make node %q not ready: %w", name, err)
	}
	for i, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			node.Status.Conditions[i].Status = corev1.ConditionUnknown
			node.Status.Conditions[i].Reason = "NodeStatusUnknown"
			node.Status.Conditions[i].Message = "Kubelet stopped posting node status."
			node.Status.Conditions[i].LastTransitionTime = metav1.Now()
		}
	}
	if err := f.env.Client.Status().Update(ctx, node); err != nil {
		return fmt.Errorf("cannot make node %q not ready: %w", name, err)
	}
	return nil
}

// SetReady hands node back to KWOK and removes the not-ready taint once KWOK reports it Ready again.
func (f *FakeNodes) SetReady(ctx context.Context, name string) error {
	node := &corev1.Node{}
	if err := f.env.Client.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
		return fmt.Errorf("cannot get node %q: %w", name, err)
	}
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	node.Annotations[fakeNodeAnnotation] = "fake"
	if err := f.env.Client.Update(ctx, node); err != nil {
		return fmt.Errorf("cannot make node %q ready: %w", name, err)
	}
	return f.untaintWhenReady(ctx, name)
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (f *FakeNodes) start(bin string, args ...string) error {
	name := filepath.Base(bin)
	out, err := os.Create(filepath.Join(f.dir, name+".log"))
	if err != nil {
		return fmt.Errorf("cannot start %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start %s: %w", name, err)
	}
	f.cmds = append(f.cmds, cmd)
	return nil
}

// Logs returns the file that holds the output of kube-scheduler or kwok.
func (f *FakeNodes) Logs(name string) string { return filepath.Join(f.dir, name+".log") }

// Stop stops kube-scheduler and kwok and removes their folder. It is safe to call more than once.
func (f *FakeNodes) Stop() error {
	if f == nil {
		return nil
	}
	for _, cmd := range f.cmds {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
		}
	}
	f.cmds = nil
	if f.dir == "" {
		return nil
	}
	dir := f.dir
	f.dir = ""
	return os.RemoveAll(dir)
}

// fakeNode is a Node that kwok manages, with room for many pods.
func fakeNode(n NodeSpec) *corev1.Node {
	labels := map[string]string{"kubernetes.io/hostname": n.Name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"type": "kwok"}
	if n.Zone != "" {
		labels[corev1.LabelTopologyZone] = n.Zone
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods: resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: labels,
			Annotations: map[string]string{fakeNodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

// writeKubeconfig writes a kubeconfig file for cfg (the administrator of an Environment).
func writeKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData,
		Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("cannot write the kubeconfig for fake nodes: %w", err)
	}
	return nil
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Size() > 0
}
