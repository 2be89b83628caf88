package identity_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/davecgh/go-spew/spew"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/dump"

	"github.com/capkit/capkit/identity"
)

const secretValue = "s3cr3t-value-never-printed"

// TestCredentialsNeverPrint prints credentials every way a log line, an error or an event could, and finds
// the keys but never a value.
func TestCredentialsNeverPrint(t *testing.T) {
	creds := identity.NewCredentials(map[string][]byte{"accessKeyID": []byte("AKID-visible-only-as-value"), "secretAccessKey": []byte(secretValue)})
	js, err := json.Marshal(creds)
	require.NoError(t, err)
	text, err := creds.MarshalText()
	require.NoError(t, err)
	var logged string
	log := funcr.New(func(prefix, args string) { logged += prefix + args }, funcr.Options{Verbosity: 10})
	log.V(10).Info("resolved", "credentials", creds, "pointer", &creds)
	outputs := map[string]string{
		"%v": fmt.Sprintf("%v", creds), "%+v": fmt.Sprintf("%+v", creds), "%#v": fmt.Sprintf("%#v", creds),
		"%s": fmt.Sprintf("%s", creds), "%q": fmt.Sprintf("%q", creds), "%x": fmt.Sprintf("%x", creds),
		"in a struct": fmt.Sprintf("%+v", struct{ C identity.Credentials }{creds}),
		"error":       fmt.Errorf("cannot connect with %v", creds).Error(),
		"json":        string(js), "text": string(text), "logr": logged,
	}
	for name, out := range outputs {
		assert.NotContains(t, out, secretValue, name)
		assert.NotContains(t, out, "AKID-visible-only-as-value", name)
		assert.NotContains(t, out, fmt.Sprintf("%x", secretValue), name)
	}
	assert.Contains(t, outputs["%v"], "secretAccessKey", "the keys are shown, to help debugging")
	assert.Equal(t, []byte(secretValue), creds.Get("secretAccessKey"))
}

func TestCredentialsEqual(t *testing.T) {
	a := identity.NewCredentials(map[string][]byte{"k": []byte("v1")})
	b := identity.NewCredentials(map[string][]byte{"k": []byte("v1")})
	c := identity.NewCredentials(map[string][]byte{"k": []byte("v2")})
	d := identity.NewCredentials(map[string][]byte{"k=": []byte("v1")})
	assert.True(t, a.Equal(b))
	assert.False(t, a.Equal(c))
	assert.False(t, a.Equal(d))
	raw := map[string][]byte{"k": []byte("v1")}
	e := identity.NewCredentials(raw)
	raw["k"][0] = 'x'
	assert.True(t, a.Equal(e), "NewCredentials copies its input")
}

// mockT records what testify reports, to look at the diff it prints.
type mockT struct{ out strings.Builder }

func (m *mockT) Errorf(format string, args ...any) { fmt.Fprintf(&m.out, format, args...) }

// TestCredentialsHiddenFromReflectionPrinters prints credentials with printers that walk struct fields by
// reflection and never call String or Format: none of them may reach the values, nor their fingerprint.
func TestCredentialsHiddenFromReflectionPrinters(t *testing.T) {
	creds := identity.NewCredentials(map[string][]byte{"secretAccessKey": []byte(secretValue)})
	other := identity.NewCredentials(map[string][]byte{"secretAccessKey": []byte("another-" + secretValue)})
	type holder struct {
		creds identity.Credentials // unexported: fmt cannot call its methods
		Ptr   *identity.Credentials
	}
	h := holder{creds: creds, Ptr: &creds}
	var diff mockT
	assert.Equal(&diff, holder{creds: other}, h)
	spewNoMethods := spew.ConfigState{DisableMethods: true, Indent: " "}
	outputs := map[string]string{
		"dump.Pretty":              dump.Pretty(h),
		"dump.OneLine":             dump.OneLine(h),
		"dump.ForHash":             dump.ForHash(h),
		"spew without methods":     spewNoMethods.Sdump(h, creds),
		"spew %+v without methods": spewNoMethods.Sprintf("%+v", h),
		"spew %#v without methods": spewNoMethods.Sprintf("%#v", h),
		"testify diff":             diff.out.String(),
		"fmt %#v":                  fmt.Sprintf("%#v", h),
		"fmt %+v":                  fmt.Sprintf("%+v", h),
		"fmt %v":                   fmt.Sprintf("%v", []any{h, &h}),
	}
	require.NotEmpty(t, diff.out.String(), "the holders differ, so testify prints a diff")
	for name, out := range outputs {
		assert.NotContains(t, out, secretValue, name)
		assert.NotContains(t, out, fmt.Sprintf("%x", secretValue), name)
		for _, bytes := range []string{"115 51 99", "115, 51, 99", "0x73, 0x33, 0x63", "733363", "73 33 63"} { // "s3c"
			assert.NotContains(t, out, bytes, name)
		}
		assert.NotRegexp(t, `[0-9a-f]{64}`, out, name+": no fingerprint either")
	}
	assert.Equal(t, []byte(secretValue), creds.Get("secretAccessKey"))
	assert.Empty(t, identity.Credentials{}.Keys(), "the zero value holds nothing")
	assert.Nil(t, identity.Credentials{}.Get("secretAccessKey"))
}
