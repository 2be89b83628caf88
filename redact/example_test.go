package redact_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"

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
