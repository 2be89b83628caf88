package identity_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/davecgh/go-spew/spew"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/utils/dump"
	"sigs.k8s.io/yaml"

	"github.com/capkit/capkit/identity"
)

// printChildEnv, when set, makes TestCredentialsSurviveEveryPrinter the child process that prints (and TestMain
// start no API server): a printer that faults kills that process, not the test run.
const printChildEnv = "CAPKIT_TEST_CREDENTIALS_PRINT_CHILD"

// printMarker starts each printer's output in the child's standard output.
const printMarker = "=== printer: "

// TestCredentialsSurviveEveryPrinter prints credentials with every printer a provider's logs, errors or test
// failures may use, go-spew with its defaults (methods on) included, in a child process: go-spew's unsafe
// "addressable copy" of a value stored directly in an interface calls its methods on a wrong pointer, a fatal
// fault no recover catches. The child must exit 0, run every printer, and print no value, nor a fingerprint.
func TestCredentialsSurviveEveryPrinter(t *testing.T) {
	if os.Getenv(printChildEnv) != "" {
		printCredentialsEveryWay(t)
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCredentialsSurviveEveryPrinter$", "-test.count=1", "-test.timeout=90s")
	cmd.Env = append(os.Environ(), printChildEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	got := out.String()
	require.NoError(t, err, "the child printing the credentials failed:\n%s", excerpt(got, 1500))
	for _, name := range printerNames {
		assert.Contains(t, got, printMarker+name+"\n", "the child ran printer %q", name)
	}
	assert.Contains(t, got, "secretAccessKey", "the keys are printed, so the test can see the printers reached the credentials")
	for _, leak := range leakForms(secretValue) {
		assert.NotContains(t, got, leak)
	}
	assert.NotRegexp(t, regexp.MustCompile(`[0-9a-f]{64}`), got, "no fingerprint either")
}

// printerNames are the printers printCredentialsEveryWay runs, in order.
var printerNames = []string{
	"fmt", "spew.Sdump (defaults)", "spew.Sprintf (defaults)", "spew.Printf-family", "spew ConfigState{} (methods on)",
	"spew ContinueOnMethod", "spew DisablePointerMethods", "spew DisableMethods", "testify diff", "testify ObjectsAreEqual message",
	"k8s dump", "json", "yaml", "slog", "logr funcr",
}

// credsHolder holds credentials in an exported field, an unexported one, by pointer, in an interface and in a map.
type credsHolder struct {
	Creds  identity.Credentials
	creds  identity.Credentials
	Ptr    *identity.Credentials
	Any    any
	ByName map[string]identity.Credentials
}

// printCredentialsEveryWay is the child's side: it writes what each printer makes of credentials to standard output.
func printCredentialsEveryWay(t *testing.T) {
	creds := identity.NewCredentials(map[string][]byte{"secretAccessKey": []byte(secretValue)})
	other := identity.NewCredentials(map[string][]byte{"secretAccessKey": []byte("another-" + secretValue)})
	h := credsHolder{Creds: creds, creds: creds, Ptr: &creds, Any: creds, ByName: map[string]identity.Credentials{"a": creds}}
	values := []any{creds, &creds, h, &h, []identity.Credentials{creds}, [1]identity.Credentials{creds}, any(creds)}
	printed := func(name string, outs ...string) {
		fmt.Printf("%s%s\n%s\n", printMarker, name, strings.Join(outs, "\n"))
	}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%T"} {
		for _, v := range values {
			outs = append(outs, fmt.Sprintf(verb, v))
		}
	}
	printed("fmt", outs...)
	outs = nil
	for _, v := range values {
		outs = append(outs, spew.Sdump(v))
	}
	printed("spew.Sdump (defaults)", outs...)
	printed("spew.Sprintf (defaults)", spew.Sprintf("%v %+v %#v", creds, h, &h), spew.Sprint(creds, h), spew.Sprintln(&creds))
	var buf bytes.Buffer
	spew.Fdump(&buf, creds, h)
	spew.Fprintf(&buf, "%+v", h)
	printed("spew.Printf-family", buf.String())
	configs := map[string]spew.ConfigState{
		"spew ConfigState{} (methods on)": {},
		"spew ContinueOnMethod":           {ContinueOnMethod: true, Indent: " "},
		"spew DisablePointerMethods":      {DisablePointerMethods: true},
		"spew DisableMethods":             {DisableMethods: true, Indent: " "},
	}
	for _, name := range printerNames {
		cs, ok := configs[name]
		if !ok {
			continue
		}
		outs = []string{cs.Sdump(values...), cs.Sprintf("%v %+v %#v", creds, h, &h)}
		printed(name, outs...)
	}
	var diff mockT
	assert.Equal(&diff, credsHolder{Creds: other, creds: other}, h)
	assert.Equal(&diff, other, creds)
	require.NotEmpty(t, diff.out.String(), "the values differ, so testify prints a diff")
	printed("testify diff", diff.out.String())
	var msg mockT
	assert.Contains(&msg, []identity.Credentials{other}, creds)
	assert.Nil(&msg, creds)
	printed("testify ObjectsAreEqual message", msg.out.String())
	printed("k8s dump", dump.Pretty(h), dump.OneLine(h), dump.ForHash(h), dump.Pretty(creds))
	js, err := json.Marshal(h)
	require.NoError(t, err)
	printed("json", string(js))
	y, err := yaml.Marshal(h)
	require.NoError(t, err)
	y3, err := yamlv3.Marshal(h)
	require.NoError(t, err)
	printed("yaml", string(y), string(y3))
	buf.Reset()
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("resolved", "creds", creds, "holder", h)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("resolved", "creds", creds, "holder", &h)
	printed("slog", buf.String())
	var logged string
	log := funcr.New(func(prefix, args string) { logged += prefix + args + "\n" }, funcr.Options{Verbosity: 10})
	log.Info("resolved", "credentials", creds, "holder", h, "pointer", &h)
	printed("logr funcr", logged)
}

// leakForms are the ways a printer may show a secret: as text, in hex, base64 and as a list of bytes.
func leakForms(secret string) []string {
	s3c := []byte(secret[:3])
	return []string{
		secret, fmt.Sprintf("%x", secret), fmt.Sprintf("% x", secret[:3]), base64.StdEncoding.EncodeToString([]byte(secret)),
		fmt.Sprintf("%d %d %d", s3c[0], s3c[1], s3c[2]), fmt.Sprintf("%d, %d, %d", s3c[0], s3c[1], s3c[2]), fmt.Sprintf("0x%x, 0x%x, 0x%x", s3c[0], s3c[1], s3c[2]),
	}
}

// excerpt is at most n bytes of a child's output: from its first fatal error or panic, else its end.
func excerpt(s string, n int) string {
	for _, start := range []string{"fatal error:", "panic:"} {
		if i := strings.Index(s, start); i >= 0 {
			return s[i:min(len(s), i+n)]
		}
	}
	return s[max(0, len(s)-n):]
}
