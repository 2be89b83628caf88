package identity_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
