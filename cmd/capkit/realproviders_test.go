package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moduleRoot is the root of the capkit module, from this package's folder.
const moduleRoot = "../.."

// dryRunRule is the corpus's pseudo rule for template webhooks that refuse Cluster API's topology dry-run: no
// static check can see it (providertest.AssertTemplateAcceptsTopologyDryRun does, on envtest), so the corpus
// counts it as missed.
const dryRunRule = "webhook.topology-dry-run"

// maxCorpusOutput bounds what TestRealProviders reads of run.sh (about 10 KiB today).
const maxCorpusOutput = 1 << 20

// corpusReport is what run.sh of the real-providers corpus prints: its summary line and the (provider, rule)
// pairs of each verdict.
type corpusReport struct {
	summary string
	pairs   map[string][]string // verdict (TRUE, FALSE, UNLISTED, UNCLEAR, MISSED) → "provider rule"
}

var (
	corpusSummary  = regexp.MustCompile(`^real providers: (\d{1,6}) true findings reported, (\d{1,6}) false positives, (\d{1,6}) known problems missed$`)
	corpusVerdicts = map[string]bool{"TRUE": true, "FALSE": true, "UNLISTED": true, "UNCLEAR": true, "MISSED": true}
)

// parseCorpusReport reads run.sh's output: the pair lines ("  VERDICT provider rule N lines reason") and the
// last line, whose counts must agree with the pairs listed.
func parseCorpusReport(out string) (corpusReport, error) {
	if len(out) > maxCorpusOutput {
		return corpusReport{}, fmt.Errorf("cannot read run.sh's output: %d bytes, more than %d", len(out), maxCorpusOutput)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	last := lines[len(lines)-1]
	m := corpusSummary.FindStringSubmatch(last)
	if m == nil {
		return corpusReport{}, fmt.Errorf("cannot read run.sh's last line %q: want %q", last, "real providers: T true findings reported, F false positives, M known problems missed")
	}
	r := corpusReport{summary: last, pairs: map[string][]string{}}
	for _, l := range lines[:len(lines)-1] {
		if f := strings.Fields(l); len(f) >= 3 && corpusVerdicts[f[0]] && strings.HasPrefix(l, "  ") {
			r.pairs[f[0]] = append(r.pairs[f[0]], f[1]+" "+f[2])
		}
	}
	counts := []struct {
		name     string
		summary  string
		verdicts []string
	}{
		{"true findings", m[1], []string{"TRUE"}},
		{"false positives", m[2], []string{"FALSE", "UNLISTED"}},
		{"known problems missed", m[3], []string{"MISSED"}},
	}
	var errs []error
	for _, c := range counts {
		listed := 0
		for _, v := range c.verdicts {
			listed += len(r.pairs[v])
		}
		if strconv.Itoa(listed) != c.summary {
			errs = append(errs, fmt.Errorf("cannot read run.sh's output: the last line counts %s %s, the pairs listed %d", c.summary, c.name, listed))
		}
	}
	return r, errors.Join(errs...)
}

// unexpected returns the pairs the corpus test fails on: the false positives (FALSE and UNLISTED), and the known
// problems missed but those of dryRunRule.
func (r corpusReport) unexpected() (falsePositives, missed []string) {
	for _, p := range r.pairs["MISSED"] {
		if !strings.HasSuffix(p, " "+dryRunRule) {
			missed = append(missed, p)
		}
	}
	return slices.Concat(r.pairs["FALSE"], r.pairs["UNLISTED"]), missed
}

// cappedBuffer keeps the first max bytes written to it and drops the rest, so that a process cannot fill memory.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.Len(); n > room {
		b.over, p = true, p[:max(room, 0)]
	}
	b.Buffer.Write(p)
	return n, nil
}

// realProvidersDir returns the real-providers corpus: $CAPKIT_REAL_PROVIDERS, else ../shared/real-providers
// beside the module root. It skips the test when the corpus is absent (a clone of capkit alone).
func realProvidersDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CAPKIT_REAL_PROVIDERS")
	if dir == "" {
		dir = filepath.Join(moduleRoot, "..", "shared", "real-providers")
	}
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(abs, "run.sh")); err != nil {
		t.Skipf("the real-providers corpus is absent (no run.sh in %s; set CAPKIT_REAL_PROVIDERS to its folder): %v", abs, err)
	}
	return abs
}

// TestRealProviders runs capkit check on the real-providers corpus (run.sh builds capkit from this module and
// checks ten providers' files) and fails on any false positive, and on any known problem missed but the
// template webhooks that refuse Cluster API's topology dry-run, which no static check can see.
func TestRealProviders(t *testing.T) {
	dir := realProvidersDir(t)
	root, err := filepath.Abs(moduleRoot)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(dir, "run.sh"))
	cmd.Dir = root
	out := &cappedBuffer{max: maxCorpusOutput}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 1) { // 1: findings to compare; 2: run.sh could not run
		t.Fatalf("bash %s: %v\n%s", filepath.Join(dir, "run.sh"), err, out.String())
	}
	require.False(t, out.over, "run.sh printed more than %d bytes", maxCorpusOutput)
	r, err := parseCorpusReport(out.String())
	require.NoError(t, err, "run.sh's output:\n%s", out.String())
	t.Logf("%s (%s)", r.summary, time.Since(start).Round(100*time.Millisecond))

	falsePositives, missed := r.unexpected()
	if len(falsePositives) > 0 || len(missed) > 0 {
		t.Errorf("%s\nfalse positives (provider rule): %q\nknown problems missed, but %s (provider rule): %q\nrun.sh's output:\n%s",
			r.summary, falsePositives, dryRunRule, missed, out.String())
	}
}

func TestParseCorpusReport(t *testing.T) {
	const pairs = "per (provider, rule):\n" +
		"  FALSE    aws           components.aggregated-role     2 lines    the manager role grants it\n" +
		"  MISSED   outscale      webhook.topology-dry-run       0 lines    KNOWN MISS, outscale issue #864\n" +
		"  MISSED   proxmox       webhook.topology-dry-run       0 lines    KNOWN MISS, CAPMOX issue #735\n" +
		"  TRUE     digitalocean  metadata.contract              1 lines    v1.11 maps to a contract\n" +
		"  UNCLEAR  gcp           crd.x                          1 lines    maybe\n" +
		"  UNLISTED vsphere       crd.y                          3 lines    (not in expected.tsv)\n" +
		"\nunclear pairs reported: 1 (counted in neither)\n"
	tests := []struct {
		name    string
		out     string
		want    map[string][]string
		wantFP  []string // unexpected's results
		wantMis []string
		wantErr string
	}{
		{name: "pairs and counts", out: "building capkit ...\n  aws           bases       exit 1, 2 lines on stdout, 0 error lines; 3 files\n\n" + pairs +
			"real providers: 1 true findings reported, 2 false positives, 2 known problems missed\n",
			want: map[string][]string{
				"FALSE": {"aws components.aggregated-role"}, "MISSED": {"outscale webhook.topology-dry-run", "proxmox webhook.topology-dry-run"},
				"TRUE": {"digitalocean metadata.contract"}, "UNCLEAR": {"gcp crd.x"}, "UNLISTED": {"vsphere crd.y"},
			},
			wantFP: []string{"aws components.aggregated-role", "vsphere crd.y"}},
		{name: "a known problem missed beside the webhook ones", out: "  MISSED   aws           crd.move-label                 0 lines    x\n" +
			"  MISSED   proxmox       webhook.topology-dry-run       0 lines    y\n" +
			"real providers: 0 true findings reported, 0 false positives, 2 known problems missed\n",
			want:    map[string][]string{"MISSED": {"aws crd.move-label", "proxmox webhook.topology-dry-run"}},
			wantMis: []string{"aws crd.move-label"}},
		{name: "counts that disagree with the pairs", out: pairs + "real providers: 1 true findings reported, 0 false positives, 2 known problems missed",
			wantErr: "the last line counts 0 false positives, the pairs listed 2"},
		{name: "no summary", out: "run.sh: go build ./cmd/capkit failed\n", wantErr: `cannot read run.sh's last line "run.sh: go build ./cmd/capkit failed"`},
		{name: "empty", out: "", wantErr: `cannot read run.sh's last line ""`},
		{name: "too long", out: strings.Repeat("x", maxCorpusOutput+1), wantErr: "more than 1048576"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseCorpusReport(tt.out)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.pairs)
			fp, missed := r.unexpected()
			assert.Equal(t, tt.wantFP, fp)
			assert.Equal(t, tt.wantMis, missed)
		})
	}
}

// FuzzParseCorpusReport: any output is read or refused with an error, never a panic, and pairs are only read
// from output whose counts agree with them.
func FuzzParseCorpusReport(f *testing.F) {
	f.Add("  MISSED   proxmox       webhook.topology-dry-run       0 lines    y\n" +
		"real providers: 0 true findings reported, 0 false positives, 1 known problems missed\n")
	f.Add("real providers: 1 true findings reported, 0 false positives, 0 known problems missed")
	f.Add("\n\n")
	f.Fuzz(func(t *testing.T, out string) {
		r, err := parseCorpusReport(out)
		if err != nil {
			return
		}
		fp, _ := r.unexpected()
		if !strings.Contains(r.summary, fmt.Sprintf(" %d false positives,", len(fp))) {
			t.Fatalf("%d false positives listed, summary %q", len(fp), r.summary)
		}
	})
}
