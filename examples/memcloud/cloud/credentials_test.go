package cloud_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

const testSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

var testCreds = cloud.Credentials{AccessKeyID: "MCAK0123456789ABCDEF", SecretAccessKey: testSecret}

// TestCredentialsNeverPrintTheSecret goes through every way credentials reach a log, an error,
// an event or a JSON document.
func TestCredentialsNeverPrintTheSecret(t *testing.T) {
	type holder struct {
		Name  string
		Creds cloud.Credentials
	}
	type ptrHolder struct {
		Creds *cloud.Credentials `json:"creds"`
	}
	creds := testCreds
	tests := []struct {
		name   string
		render func() (string, error)
		want   string
	}{
		{"String", str(creds.String), "{MCAK0123456789ABCDEF <redacted>}"},
		{"GoString", str(creds.GoString), `cloud.Credentials{AccessKeyID:"MCAK0123456789ABCDEF", SecretAccessKey:"<redacted>"}`},
		{"Print", sprintf("%v", creds), "{MCAK0123456789ABCDEF <redacted>}"},
		{"Sprint", str(func() string { return fmt.Sprint(creds) }), "{MCAK0123456789ABCDEF <redacted>}"},
		{"%v", sprintf("%v", creds), "{MCAK0123456789ABCDEF <redacted>}"},
		{"%+v", sprintf("%+v", creds), "{AccessKeyID:MCAK0123456789ABCDEF SecretAccessKey:<redacted>}"},
		{"%#v", sprintf("%#v", creds), `cloud.Credentials{AccessKeyID:"MCAK0123456789ABCDEF", SecretAccessKey:"<redacted>"}`},
		{"%s", sprintf("%s", creds), "{MCAK0123456789ABCDEF <redacted>}"},
		{"%q", sprintf("%q", creds), `"{MCAK0123456789ABCDEF <redacted>}"`},
		{"%#q", sprintf("%#q", creds), "`{MCAK0123456789ABCDEF <redacted>}`"},
		{"width and left flag", sprintf("[%-35v]", creds), "[{MCAK0123456789ABCDEF <redacted>}  ]"},
		{"precision", sprintf("%.5s", creds), "{MCAK"},
		{"%x", sprintf("%x", creds), "%!x(cloud.Credentials={MCAK0123456789ABCDEF <redacted>})"},
		{"%d", sprintf("%d", creds), "%!d(cloud.Credentials={MCAK0123456789ABCDEF <redacted>})"},
		{"pointer %v", sprintf("%v", &creds), "{MCAK0123456789ABCDEF <redacted>}"},
		{"pointer %+v", sprintf("%+v", &creds), "{AccessKeyID:MCAK0123456789ABCDEF SecretAccessKey:<redacted>}"},
		{"field %+v", sprintf("%+v", holder{"a", creds}), "{Name:a Creds:{AccessKeyID:MCAK0123456789ABCDEF SecretAccessKey:<redacted>}}"},
		{"field %#v", sprintf("%#v", holder{"a", creds}),
			`cloud_test.holder{Name:"a", Creds:cloud.Credentials{AccessKeyID:"MCAK0123456789ABCDEF", SecretAccessKey:"<redacted>"}}`},
		{"slice", sprintf("%v", []cloud.Credentials{creds}), "[{MCAK0123456789ABCDEF <redacted>}]"},
		{"map value", sprintf("%v", map[string]cloud.Credentials{"k": creds}), "map[k:{MCAK0123456789ABCDEF <redacted>}]"},
		{"error %v", str(func() string { return fmt.Errorf("cannot use %v: %w", creds, errors.New("boom")).Error() }),
			"cannot use {MCAK0123456789ABCDEF <redacted>}: boom"},
		{"empty secret", sprintf("%+v", cloud.Credentials{AccessKeyID: "MCAK0123456789ABCDEF"}), "{AccessKeyID:MCAK0123456789ABCDEF SecretAccessKey:}"},
		{"zero", sprintf("%v", cloud.Credentials{}), "{ }"},
		// encoding/json escapes < and > as \u003c and \u003e; the decoded value is "<redacted>".
		{"MarshalJSON", marshal(json.Marshal, creds), `{"AccessKeyID":"MCAK0123456789ABCDEF","SecretAccessKey":"\u003credacted\u003e"}`},
		{"JSON without HTML escaping", marshal(func(v any) ([]byte, error) {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			err := enc.Encode(v)
			return b.Bytes(), err
		}, creds), `{"AccessKeyID":"MCAK0123456789ABCDEF","SecretAccessKey":"<redacted>"}` + "\n"},
		{"JSON pointer field", marshal(json.Marshal, ptrHolder{&creds}), `{"creds":{"AccessKeyID":"MCAK0123456789ABCDEF","SecretAccessKey":"\u003credacted\u003e"}}`},
		{"JSON indented", marshal(func(v any) ([]byte, error) { return json.MarshalIndent(v, "", " ") }, holder{"a", creds}),
			"{\n \"Name\": \"a\",\n \"Creds\": {\n  \"AccessKeyID\": \"MCAK0123456789ABCDEF\",\n  \"SecretAccessKey\": \"\\u003credacted\\u003e\"\n }\n}"},
		{"JSON map key (MarshalText)", marshal(json.Marshal, map[cloud.Credentials]int{creds: 1}), `{"{MCAK0123456789ABCDEF \u003credacted\u003e}":1}`},
		{"MarshalText", marshal(func(any) ([]byte, error) { return creds.MarshalText() }, nil), "{MCAK0123456789ABCDEF <redacted>}"},
		{"YAML through JSON", marshal(yaml.Marshal, holder{"a", creds}),
			"Creds:\n  AccessKeyID: MCAK0123456789ABCDEF\n  SecretAccessKey: <redacted>\nName: a\n"},
		{"YAML v3 (MarshalText)", marshal(yamlv3.Marshal, holder{"a", creds}), "name: a\ncreds: '{MCAK0123456789ABCDEF <redacted>}'\n"},
		{"slog JSON", logWith(func(w *bytes.Buffer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }, creds),
			`"creds":{"AccessKeyID":"MCAK0123456789ABCDEF","SecretAccessKey":"<redacted>"}`},
		{"slog text", logWith(func(w *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }, creds),
			`creds="{MCAK0123456789ABCDEF <redacted>}"`},
		{"logr funcr", str(func() string {
			var out string
			log := funcr.New(func(prefix, args string) { out = args }, funcr.Options{})
			log.Info("resolved", "creds", creds, "ptr", &creds)
			return out
		}), `"level"=0 "msg"="resolved" "creds"="{MCAK0123456789ABCDEF <redacted>}" "ptr"="{MCAK0123456789ABCDEF <redacted>}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.render()
			require.NoError(t, err)
			assert.NotContains(t, got, testSecret)
			if strings.HasPrefix(tt.name, "slog") {
				assert.Contains(t, got, tt.want)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func str(f func() string) func() (string, error) { return func() (string, error) { return f(), nil } }

func sprintf(format string, v any) func() (string, error) {
	return func() (string, error) { return fmt.Sprintf(format, v), nil }
}

func marshal(m func(any) ([]byte, error), v any) func() (string, error) {
	return func() (string, error) {
		b, err := m(v)
		return string(b), err
	}
}

func logWith(newLogger func(*bytes.Buffer) *slog.Logger, creds cloud.Credentials) func() (string, error) {
	return func() (string, error) {
		var buf bytes.Buffer
		newLogger(&buf).Info("resolved", "creds", creds)
		return buf.String(), nil
	}
}

// TestCredentialsDecodeFromJSON checks that MarshalJSON does not get in the way of reading
// credentials from a JSON document, and that a round trip loses the secret.
func TestCredentialsDecodeFromJSON(t *testing.T) {
	var got cloud.Credentials
	require.NoError(t, json.Unmarshal([]byte(`{"AccessKeyID":"MCAK0123456789ABCDEF","SecretAccessKey":"`+strings.ReplaceAll(testSecret, "/", `\/`)+`"}`), &got))
	assert.Equal(t, testCreds, got)

	b, err := json.Marshal(testCreds)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, cloud.Credentials{AccessKeyID: testCreds.AccessKeyID, SecretAccessKey: cloud.Redacted}, got)
}

func TestCredentialsOnTheContext(t *testing.T) {
	_, ok := cloud.CredentialsFrom(t.Context())
	assert.False(t, ok)
	got, ok := cloud.CredentialsFrom(cloud.WithCredentials(t.Context(), testCreds))
	assert.True(t, ok)
	assert.Equal(t, testCreds, got)
	got, ok = cloud.CredentialsFrom(cloud.WithCredentials(t.Context(), cloud.Credentials{}))
	assert.True(t, ok, "empty credentials are credentials: the cloud refuses them")
	assert.Zero(t, got)
}

func TestUnauthorizedErrorNeverNamesTheSecret(t *testing.T) {
	op := cloud.VerbCreate.On(cloud.KindNetwork)
	tests := []struct {
		name string
		err  *cloud.UnauthorizedError
		want string
	}{
		{"no credentials", &cloud.UnauthorizedError{Op: op, Reason: "no credentials"},
			"unauthorized: CreateNetwork without credentials"},
		{"wrong secret", &cloud.UnauthorizedError{Op: op, AccessKeyID: testCreds.AccessKeyID, Reason: "wrong secret access key"},
			`unauthorized: CreateNetwork with access key "MCAK0123456789ABCDEF": wrong secret access key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.err.Error())
			require.ErrorIs(t, fmt.Errorf("cannot create network %q: %w", "n", tt.err), cloud.ErrUnauthorized)
			assert.NotErrorIs(t, tt.err, cloud.ErrNotFound)
		})
	}
}
