package kbplugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold"
)

// errReader fails after its data.
type errReader struct{ data io.Reader }

func (e errReader) Read(p []byte) (int, error) {
	n, err := e.data.Read(p)
	if errors.Is(err, io.EOF) {
		return n, errors.New("stdin closed")
	}
	return n, err
}

func TestReadRequest(t *testing.T) {
	// What Kubebuilder v4.16.0 sent for "kubebuilder create api" (recorded from a logging plugin).
	const kubebuilderRequest = `{"apiVersion":"v1alpha1","args":["--group","infrastructure","--version","v1beta2","--kind","AcmeMachinePool"],` +
		`"command":"create api","universe":{"PROJECT":"version: \"3\"\n","go.mod":"module x\n"},"pluginChain":["kubebuilder-capkit/v1-alpha"],` +
		`"config":{"cliVersion":"4.16.0","layout":["kubebuilder-capkit/v1-alpha"],"version":"3"}}`
	tests := []struct {
		name    string
		in      io.Reader
		limit   int64
		want    Request
		wantErr string
		wantIs  error
	}{
		{
			name: "kubebuilder's request", in: strings.NewReader(kubebuilderRequest), limit: MaxRequestBytes,
			want: Request{APIVersion: APIVersion, Command: CommandCreateAPI,
				Args:        []string{"--group", "infrastructure", "--version", "v1beta2", "--kind", "AcmeMachinePool"},
				Universe:    map[string]string{"PROJECT": "version: \"3\"\n", "go.mod": "module x\n"},
				PluginChain: []string{Key},
				Config:      map[string]any{"cliVersion": "4.16.0", "layout": []any{Key}, "version": "3"}},
		},
		{name: "exactly at the limit", in: strings.NewReader(kubebuilderRequest), limit: int64(len(kubebuilderRequest)),
			want: Request{APIVersion: APIVersion, Command: CommandCreateAPI}},
		{name: "null universe, unknown field", in: strings.NewReader(`{"apiVersion":"v1alpha1","command":"flags","universe":null,"future":{"a":[1]}}`),
			limit: 1 << 10, want: Request{APIVersion: APIVersion, Command: CommandFlags}},
		{name: "over the limit", in: strings.NewReader(kubebuilderRequest), limit: int64(len(kubebuilderRequest)) - 1,
			wantErr: "cannot read the request: over", wantIs: ErrRequestTooLarge},
		{name: "endless stdin", in: io.MultiReader(strings.NewReader(`{"universe":{"a":"`), neverEnding('x')), limit: 1 << 20,
			wantErr: "over 1048576 bytes", wantIs: ErrRequestTooLarge},
		{name: "not JSON", in: strings.NewReader("hello"), limit: 1 << 10, wantErr: "cannot read the request: invalid character 'h'"},
		{name: "not an object", in: strings.NewReader(`["init"]`), limit: 1 << 10, wantErr: `cannot read the request: want "{", got [`},
		{name: "truncated", in: strings.NewReader(`{"apiVersion":"v1alpha1","universe":{"a":"b"`), limit: 1 << 10, wantErr: "cannot read the request: unexpected EOF"},
		{name: "wrong field type", in: strings.NewReader(`{"args":"--repo"}`), limit: 1 << 10, wantErr: `cannot decode field "args"`},
		{name: "file not a string", in: strings.NewReader(`{"universe":{"a":1}}`), limit: 1 << 10, wantErr: `cannot decode file "a"`},
		{name: "two objects", in: strings.NewReader(`{"command":"init"}{"command":"edit"}`), limit: 1 << 10, wantErr: "data after the request object"},
		{name: "empty stdin", in: strings.NewReader(""), limit: 1 << 10, wantErr: "cannot read the request: empty request"},
		{name: "stdin fails", in: errReader{strings.NewReader(`{"command":`)}, limit: 1 << 10, wantErr: "stdin closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadRequest(tt.in, tt.limit)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				if tt.wantIs != nil {
					assert.ErrorIs(t, err, tt.wantIs)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.APIVersion, got.APIVersion)
			assert.Equal(t, tt.want.Command, got.Command)
			if tt.want.Universe != nil {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestRunAnswersEveryRequestWithJSON(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		limit     int64
		wantError string
	}{
		{name: "flags", in: `{"apiVersion":"v1alpha1","command":"flags","args":["--init"],"universe":{}}`, limit: MaxRequestBytes},
		{name: "bad JSON", in: `{"apiVersion":`, limit: MaxRequestBytes, wantError: "cannot read the request: unexpected EOF"},
		{name: "too large", in: `{"apiVersion":"v1alpha1","command":"init","universe":{"a":"` + strings.Repeat("x", 200) + `"}}`, limit: 100,
			wantError: "cannot read the request: over 100 bytes"},
		{name: "unknown command", in: `{"apiVersion":"v1alpha1","command":"create webhook","args":[],"universe":{}}`, limit: MaxRequestBytes,
			wantError: `cannot run command "create webhook"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, New(WithScaffolder(&fakeScaffolder{}), WithMaxRequestBytes(tt.limit)).Run(strings.NewReader(tt.in), &out))
			var res map[string]any
			require.NoError(t, json.Unmarshal(out.Bytes(), &res), "stdout is one JSON object: %s", out.String())
			assert.Equal(t, APIVersion, res["apiVersion"])
			assert.NotNil(t, res["universe"], "universe is always an object")
			if tt.wantError == "" {
				assert.Nil(t, res["error"])
				assert.NotEmpty(t, res["flags"])
				return
			}
			assert.Equal(t, true, res["error"])
			require.Len(t, res["errorMsgs"], 1)
			assert.Contains(t, res["errorMsgs"].([]any)[0], tt.wantError)
		})
	}
}

func TestRunFailsOnlyWhenStdoutFails(t *testing.T) {
	err := New().Run(strings.NewReader("{}"), failingWriter{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot write the response: disk full")
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

type panickingScaffolder struct{ *fakeScaffolder }

func (panickingScaffolder) Init(scaffold.Options) (scaffold.Files, error) {
	panic("the scaffold crashed")
}

func TestRunReportsAPanicInTheResponse(t *testing.T) {
	var out bytes.Buffer
	in := `{"apiVersion":"v1alpha1","command":"init","args":["--repo","x.io/p","--provider","p"],"universe":{}}`
	require.NoError(t, New(WithScaffolder(panickingScaffolder{&fakeScaffolder{}})).Run(strings.NewReader(in), &out))
	var res Response
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	assert.True(t, res.Error)
	assert.Equal(t, []string{`cannot run command "init": kubebuilder-capkit/v1-alpha panicked: the scaffold crashed`}, res.ErrorMsgs)
}
