// Command kubebuilder-capkit is capkit as a Kubebuilder external plugin (package internal/kbplugin). Kubebuilder runs
// it with one JSON request on stdin and reads one JSON response from stdout. Install it where Kubebuilder looks for
// plugin kubebuilder-capkit, version v1-alpha:
//
//	GOBIN=$HOME/.config/kubebuilder/plugins/kubebuilder-capkit/v1-alpha go install github.com/capkit/capkit/cmd/kubebuilder-capkit@latest
//
// (or under $EXTERNAL_PLUGINS_PATH/kubebuilder-capkit/v1-alpha/), then:
//
//	kubebuilder init --plugins kubebuilder-capkit/v1-alpha --repo github.com/acme/cluster-api-provider-acme --provider acme
//	kubebuilder create api --plugins kubebuilder-capkit/v1-alpha --group infrastructure --version v1beta2 --kind AcmeMachinePool
//
// Flags of init: --repo and --provider (required), --domain (default cluster.x-k8s.io), --capkit-version, and
// --capkit-replace PATH (a replace directive to a local capkit checkout in go.mod; create api takes it too).
package main

import (
	"fmt"
	"os"

	"github.com/capkit/capkit/internal/kbplugin"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "%s is a Kubebuilder external plugin: install it as "+
			"$EXTERNAL_PLUGINS_PATH/%s/%s/%s and run kubebuilder init --plugins %s\n",
			kbplugin.Name, kbplugin.Name, kbplugin.Version, kbplugin.Name, kbplugin.Key)
		os.Exit(2)
	}
	// Kubebuilder reads the response from stdout and loses it on a non-zero exit: failures are in the response.
	if err := kbplugin.New(kbplugin.WithWorkDir(os.DirFS("."))).Run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
