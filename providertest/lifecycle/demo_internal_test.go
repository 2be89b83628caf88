package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestMachinesFlag(t *testing.T) {
	tests := []struct {
		in      string
		want    Machines
		wantErr bool
	}{
		{in: "1+3", want: Machines{ControlPlane: 1, Workers: 3}},
		{in: "3+0", want: Machines{ControlPlane: 3}},
		{in: "0+3", wantErr: true},
		{in: "4", wantErr: true},
		{in: "1+-1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var m Machines
			err := m.Set(tt.in)
			if tt.wantErr {
				assert.ErrorContains(t, err, "invalid machines")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, m)
			assert.Equal(t, tt.in, m.String())
		})
	}
}

func TestOutcomeErr(t *testing.T) {
	assert.NoError(t, Outcome{Provisioned: true, Deleted: true}.Err())
	err := Outcome{Timeout: time.Second, Leaks: []string{"Network net-1"}, Duplicates: []string{"Pod a and Pod b"}}.Err()
	assert.EqualError(t, err, "the cluster was not provisioned within 1s\nthe cluster was not deleted within 1s\nleaked Network net-1\nduplicate: Pod a and Pod b")
}

func TestKubeadmBootstrapData(t *testing.T) {
	data := KubeadmBootstrapData("c", "secret-token", "mycloud://{{ ds.meta_data.instance_id }}")
	first, join := string(data("c-cp-0", true)), string(data("c-md-0", false))
	assert.Contains(t, first, "kubeadm init")
	assert.Contains(t, first, "value: 'mycloud://{{ ds.meta_data.instance_id }}'")
	assert.Contains(t, join, "kubeadm join")
	assert.Contains(t, join, "token: abcdef.secret-token-c-md-0")
	assert.NotContains(t, string(KubeadmBootstrapData("c", "x", "")("c-md-0", false)), "provider-id")
}

func TestMainExitCodes(t *testing.T) {
	fail := errors.New("boom")
	tests := []struct {
		name               string
		parseErr, runErr   error
		wantCode           int
		wantStderr, wantRn string
	}{
		{name: "help", parseErr: flag.ErrHelp, wantCode: 0},
		{name: "bad flags", parseErr: fail, wantCode: 2, wantStderr: "demo: boom\n"},
		{name: "run fails", runErr: fail, wantCode: 1, wantStderr: "demo: boom\n", wantRn: "ran"},
		{name: "clean", wantCode: 0, wantRn: "ran"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := mainWith("demo", nil, func([]string) error { return tt.parseErr },
				func(_ context.Context, out io.Writer) error { _, _ = io.WriteString(out, "ran"); return tt.runErr }, &stdout, &stderr)
			assert.Equal(t, tt.wantCode, code)
			assert.Equal(t, tt.wantStderr, stderr.String())
			assert.Equal(t, tt.wantRn, stdout.String())
		})
	}
}

// demoOptions are a demo's options: the standard flags and one of the provider's own.
type demoOptions struct {
	DemoFlags
	extra string
}

func (o *demoOptions) parse(args []string) error {
	return o.Parse(args, DemoFlags{Machines: Machines{ControlPlane: 1, Workers: 3}, Timeout: time.Minute},
		func(fs *flag.FlagSet) { fs.StringVar(&o.extra, "extra", "x", "a provider's own flag") })
}

func TestDemoFlagsParse(t *testing.T) {
	AssertParse(t, (*demoOptions).parse, []ParseCase[demoOptions]{
		{Name: "defaults", Want: demoOptions{DemoFlags{Machines: Machines{ControlPlane: 1, Workers: 3}, Timeout: time.Minute}, "x"}},
		{Name: "set", Args: []string{"--machines=3+0", "--timeout=10s", "--extra=y"},
			Want: demoOptions{DemoFlags{Machines: Machines{ControlPlane: 3}, Timeout: 10 * time.Second}, "y"}},
		{Name: "no control plane", Args: []string{"--machines=0+3"}, WantErr: `invalid machines "0+3"`},
		{Name: "not a pair", Args: []string{"--machines=4"}, WantErr: `invalid machines "4"`},
		{Name: "zero timeout", Args: []string{"--timeout=0s"}, WantErr: "invalid --timeout 0s: must be positive"},
		{Name: "stray argument", Args: []string{"now"}, WantErr: `unexpected arguments ["now"]`},
		{Name: "unknown flag", Args: []string{"--faults=1"}, WantErr: "flag provided but not defined: -faults"},
	})
}

func TestParseCaseMismatch(t *testing.T) {
	tests := []struct {
		name string
		tc   ParseCase[int]
		got  int
		err  error
		want string
	}{
		{name: "parsed as wanted", tc: ParseCase[int]{Want: 1}, got: 1},
		{name: "failed as wanted", tc: ParseCase[int]{WantErr: "bad"}, err: errors.New("a bad flag")},
		{name: "other options", tc: ParseCase[int]{Want: 1}, got: 2, want: "got 2, want 1"},
		{name: "unwanted error", tc: ParseCase[int]{}, err: errors.New("a bad flag"), want: "a bad flag"},
		{name: "no error", tc: ParseCase[int]{WantErr: "bad"}, want: `got no error, want one containing "bad"`},
		{name: "other error", tc: ParseCase[int]{WantErr: "bad"}, err: errors.New("worse"), want: `got error "worse", want one containing "bad"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.tc.mismatch(tt.got, tt.err))
		})
	}
}

func TestInfraObjectHasASpec(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "infrastructure.example.io", Version: "v1beta2", Kind: "FooMachine"}
	l := &Driver{spec: Spec{Namespace: "ns", ClusterName: "c1"}}
	tests := []struct {
		name     string
		template func() (client.Object, error)
		want     any
	}{
		{"no template: an empty spec", func() (client.Object, error) { return nil, nil }, map[string]any{}},
		{"a template without a spec gets an empty one", func() (client.Object, error) {
			return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x"}}}, nil
		}, map[string]any{}},
		{"a template's spec is kept", func() (client.Object, error) {
			return &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"image": "ubuntu"}}}, nil
		}, map[string]any{"image": "ubuntu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := l.infraObject(gvk, "m1", tt.template)
			require.NoError(t, err)
			assert.Equal(t, tt.want, u.Object["spec"])
			assert.Equal(t, "m1", u.GetName())
		})
	}
}
