package redact_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-logr/logr/funcr"

	"github.com/capkit/capkit/redact"
)

// The scope registers the bootstrap data it reads; whatever a cloud echoes of it is masked, whole, in base64
// or one line of it, in messages, errors and log lines.
func ExampleRedactor() {
	r := redact.New()
	r.Add([]byte("#cloud-config\nruncmd:\n- kubeadm join --token abcdef.0123456789abcdef 10.0.0.1:6443\n"))

	fmt.Println(r.String(`InvalidParameter: token "abcdef.0123456789abcdef" in user data`))
	fmt.Println(r.String("user data " + base64.StdEncoding.EncodeToString([]byte("--token abcdef.0123456789abcdef"))))
	fmt.Println(r.Error(errors.New("cannot create instance: quota exceeded")))

	log := r.Logger(funcr.New(func(_, args string) { fmt.Fprintln(os.Stdout, args) }, funcr.Options{}))
	log.Info("created", "userData", "--token abcdef.0123456789abcdef")
	// Output:
	// InvalidParameter: token "[REDACTED]" in user data
	// user data LS10b2tlbiB[REDACTED]
	// cannot create instance: quota exceeded
	// "level"=0 "msg"="created" "userData"="--token [REDACTED]"
}

// What Add registers has lower bounds, so that a short value cannot mask every word of a message: a value shorter
// than MinSecretLength is not registered, a line or token of a longer value only from MinTokenLength bytes, and
// String masks the start of a secret cut off at the end of a text only from MinCutLength bytes.
func ExampleRedactor_Add() {
	r := redact.New()
	short := strings.Repeat("x", redact.MinSecretLength-1)
	r.Add([]byte(short))
	r.Add([]byte("password: s3cr3t-v4lue-0123456789\nuser: admin"))
	fmt.Println(r.String("user " + short))
	fmt.Println(r.String("token s3cr3t-v4lue-0123456789, user admin"), len("s3cr3t-v4lue-0123456789") >= redact.MinTokenLength)
	fmt.Println(r.String("cut: " + "s3cr3t-v4lue-0123456789"[:redact.MinCutLength]))
	// Output:
	// user xxx
	// token [REDACTED], user admin true
	// cut: [REDACTED]
}
