package capienv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/rest"

	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	clusterctllog "sigs.k8s.io/cluster-api/cmd/clusterctl/log"
)

// ClusterctlLog collects the log lines of clusterctl's library (funcr's output), safely for concurrent writers.
type ClusterctlLog struct {
	mu    sync.Mutex
	lines []string
}

// CaptureClusterctlLog returns a new ClusterctlLog and makes it clusterctl's logger, at verbosity 1, until the next
// call: clusterctl's library logs through one logger of its own for the whole process.
func CaptureClusterctlLog() *ClusterctlLog {
	l := &ClusterctlLog{}
	clusterctllog.SetLogger(funcr.New(l.write, funcr.Options{Verbosity: 1}))
	return l
}

func (l *ClusterctlLog) write(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.TrimSpace(prefix+" "+args))
}

// Info returns the lines logged at verbosity 0, one a line.
func (l *ClusterctlLog) Info() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.HasPrefix(line, `"level"=0 `) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// String returns every line, one a line.
func (l *ClusterctlLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// WriteKubeconfig writes a kubeconfig file for cfg, with context name, into dir as <name>.kubeconfig, the way
// clusterctl's --kubeconfig and --to-kubeconfig read them, and returns its path.
func WriteKubeconfig(dir string, cfg *rest.Config, name string) (string, error) {
	b, err := Kubeconfig(cfg, name)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".kubeconfig")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return "", fmt.Errorf("cannot write kubeconfig %q: %w", path, err)
	}
	return path, nil
}

// Move moves the Cluster API objects of namespace ns from the management cluster of from to the one of to with
// clusterctl's library, as `clusterctl move --kubeconfig --to-kubeconfig --namespace` does, writing the two
// kubeconfig files into dir. It returns clusterctl's log (CaptureClusterctlLog), with the error too. clusterctl reads
// its configuration from $XDG_CONFIG_HOME/cluster-api: a test points XDG_CONFIG_HOME at an empty folder.
func Move(ctx context.Context, dir string, from, to *rest.Config, ns string) (*ClusterctlLog, error) {
	log := CaptureClusterctlLog()
	src, err := WriteKubeconfig(dir, from, "source")
	if err != nil {
		return log, err
	}
	dst, err := WriteKubeconfig(dir, to, "target")
	if err != nil {
		return log, err
	}
	c, err := clusterctl.New(ctx, "")
	if err != nil {
		return log, fmt.Errorf("cannot create clusterctl's client: %w", err)
	}
	err = c.Move(ctx, clusterctl.MoveOptions{
		FromKubeconfig: clusterctl.Kubeconfig{Path: src},
		ToKubeconfig:   clusterctl.Kubeconfig{Path: dst},
		Namespace:      ns,
	})
	if err != nil {
		return log, fmt.Errorf("cannot move namespace %q: %w", ns, err)
	}
	return log, nil
}
