package logtest

import (
	"encoding/hex"
	"flag"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"
)

// Verbosity is the verbosity of Sink's logger: every V-level a library uses.
const Verbosity = 100

// Sink collects log lines from every goroutine; its zero value is ready to use.
type Sink struct {
	mu  sync.Mutex
	out strings.Builder
}

// Logger returns a logger at Verbosity that writes into s.
func (s *Sink) Logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.out.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: Verbosity})
}

// String returns everything logged so far, with the bytes of client-go's hex dumps appended decoded.
func (s *Sink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	logs := s.out.String()
	return logs + "\n" + FromHexDumps(logs)
}

// VerboseKlog sends klog's global logger, which client-go uses when a context has no logger, to l at -v=10
// until the test ends. Call it before making clients: client-go adds its debugging transports then.
func VerboseKlog(t testing.TB, l logr.Logger) {
	t.Helper()
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if err := fs.Set("v", "10"); err != nil {
		t.Fatalf("cannot set klog's verbosity: %v", err)
	}
	klog.SetLogger(l)
	t.Cleanup(func() {
		_ = fs.Set("v", "0")
		klog.ClearLogger()
	})
}

// hexDumpLine is one line of encoding/hex.Dump, as client-go logs a protobuf body.
var hexDumpLine = regexp.MustCompile(`[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2}){1,16}) *\|`)

// FromHexDumps returns the bytes of every hex dump line in logs, concatenated.
func FromHexDumps(logs string) string {
	var out []byte
	for _, m := range hexDumpLine.FindAllStringSubmatch(logs, -1) {
		if b, err := hex.DecodeString(strings.ReplaceAll(m[1], " ", "")); err == nil {
			out = append(out, b...)
		}
	}
	return string(out)
}
