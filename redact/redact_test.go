package redact_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/redact"
)

// userData is bootstrap data as kubeadm's bootstrap provider writes it: a join token inside JSON, a private
// key over several lines.
const userData = `#cloud-config
write_files:
- path: /run/kubeadm/kubeadm-join-config.yaml
  content: |
    {"discovery":{"bootstrapToken":{"token":"abcdef.0123456789abcdef","apiServerEndpoint":"10.0.0.1:6443"}}}
- path: /etc/kubernetes/pki/sa.key
  content: |
    -----BEGIN RSA PRIVATE KEY-----
    MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun
    VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK
    -----END RSA PRIVATE KEY-----
runcmd:
- kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml
`

const token = "abcdef.0123456789abcdef"

func TestRedactorMasksEveryFormOfASecret(t *testing.T) {
	r := redact.New()
	r.Add([]byte(userData))
	r.Add([]byte("hunter2!"))
	b64 := base64.StdEncoding.EncodeToString([]byte(userData))
	tests := []struct {
		name, msg string
		secrets   []string // none of these may remain
	}{
		{"whole value", "cannot create instance: user data " + userData + " rejected", []string{token, "MIIEowIBAAKCAQEA"}},
		{"base64 of the whole value", "InvalidUserData: " + b64, []string{b64[:40], b64[len(b64)-40:]}},
		{"truncated base64", "InvalidUserData: " + b64[:200] + "...", []string{b64[100:140]}},
		{"base64 inside a longer stream", "data=" + base64.StdEncoding.EncodeToString([]byte("xy"+userData)), []string{"MTIz"}},
		{"just the token line", `line 5: "token":"abcdef.0123456789abcdef",`, []string{token, "0123456789abcdef"}},
		{"token secret part alone", "bad secret 0123456789abcdef", []string{"0123456789abcdef"}},
		{"token in base64", base64.StdEncoding.EncodeToString([]byte("--token " + token)), []string{base64.StdEncoding.EncodeToString([]byte(token))[4:20]}},
		{"key line", "unexpected VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK at byte 3", []string{"VTLw7onLRnrq0"}},
		{"quoted value", fmt.Sprintf("%q", userData), []string{token, "MIIEowIBAAKCAQEA"}},
		{"short whole credential", "login with hunter2! failed", []string{"hunter2!"}},
		{"credential in base64", "auth " + base64.StdEncoding.EncodeToString([]byte("hunter2!")), []string{"aHVudGVyMiE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.String(tt.msg)
			assert.Contains(t, got, redact.Placeholder)
			for _, s := range tt.secrets {
				assert.NotContains(t, got, s)
			}
			assert.NotContains(t, got, "0123456789abcdef")
		})
	}
}

func TestRedactorLeavesOtherTextAlone(t *testing.T) {
	r := redact.New()
	r.Add([]byte(userData))
	for _, msg := range []string{
		"",
		"abc",
		`cannot create instance "vm-1": quota exceeded for instances in region "eu-west-1"`,
		"cannot create resource \"vm\": terminal error (InvalidImage): image \"ubuntu-24.04\" not found",
		strings.Repeat("x", 5000),
	} {
		assert.Equal(t, msg, r.String(msg))
	}
	var none *redact.Redactor
	assert.Equal(t, userData, none.String(userData), "a nil Redactor redacts nothing")
	none.Add([]byte(userData))
	assert.True(t, none.Empty())
	assert.Equal(t, userData, redact.New().String(userData), "nothing registered, nothing redacted")
}

func TestRedactorMergesOverlapsIntoOnePlaceholder(t *testing.T) {
	r := redact.New()
	r.Add([]byte("AAAABBBBCCCCDDDD"))
	r.Add([]byte("CCCCDDDDEEEEFFFF"))
	assert.Equal(t, "x [REDACTED] y", r.String("x AAAABBBBCCCCDDDDEEEEFFFF y"))
	assert.Equal(t, "[REDACTED]![REDACTED]", r.String("AAAABBBBCCCCDDDD!CCCCDDDDEEEEFFFF"))
	assert.Equal(t, "[REDACTED]", r.String("AAAABBBBCCCCDDDDCCCCDDDDEEEEFFFF"), "adjacent secrets make one run")
}

func TestRedactorError(t *testing.T) {
	r := redact.New()
	r.Add([]byte(token))
	sentinel := errors.New("cloud says no")
	err := fmt.Errorf("cannot create resource %q: %w: echo %s", "vm", sentinel, token)
	red := r.Error(err)
	assert.EqualError(t, red, `cannot create resource "vm": cloud says no: echo [REDACTED]`)
	assert.ErrorIs(t, red, sentinel, "the chain is kept for classification")
	plain := errors.New("no secret here")
	assert.Same(t, plain, r.Error(plain), "an error without secrets is returned as it is")
	assert.NoError(t, r.Error(nil))
	for _, verb := range []string{"%v", "%+v", "%s", "%q"} {
		assert.NotContains(t, fmt.Sprintf(verb, red), "0123456789abcdef", verb)
	}
}

func TestRedactorIgnoresTinyValues(t *testing.T) {
	r := redact.New()
	r.Add([]byte("abc"))
	assert.True(t, r.Empty())
	assert.Equal(t, "abc abc", r.String("abc abc"))
}

func TestRedactorAddIsBounded(t *testing.T) {
	// A 1 MiB Secret of distinct tokens, the largest a Secret can be.
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "token-%016d\n", i)
	}
	r := redact.New()
	r.Add([]byte(b.String()))
	assert.Equal(t, "[REDACTED] end", r.String("token-0000000000000042 end"))
	require.False(t, r.Empty())
}

// TestRedactorIsSafeForConcurrentUse registers and masks from several goroutines (run with -race).
func TestRedactorIsSafeForConcurrentUse(t *testing.T) {
	r := redact.New()
	done := make(chan struct{})
	for i := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := range 50 {
				r.Add([]byte(fmt.Sprintf("secret-value-%d-%d-long-enough", i, j)))
				_ = r.String(fmt.Sprintf("echo secret-value-%d-%d-long-enough", i, j))
			}
		}()
	}
	for range 4 {
		<-done
	}
	assert.Equal(t, "echo [REDACTED]", r.String("echo secret-value-3-49-long-enough"))
}
