// Package kbplugin is capkit as a Kubebuilder external plugin. It answers Kubebuilder's plugin protocol (one JSON
// request on stdin, one JSON response on stdout, apiVersion "v1alpha1") with the scaffolds of internal/scaffold, so
//
//	kubebuilder init --plugins kubebuilder-capkit/v1-alpha --repo github.com/acme/cluster-api-provider-acme \
//	  --provider acme --domain cluster.x-k8s.io
//	kubebuilder create api --plugins kubebuilder-capkit/v1-alpha --group infrastructure --version v1beta2 \
//	  --kind AcmeMachinePool
//
// write the same repository as "capkit init" and add an InfraMachinePool kind to it. The executable is
// cmd/kubebuilder-capkit; Kubebuilder finds it at $EXTERNAL_PLUGINS_PATH/kubebuilder-capkit/v1-alpha/kubebuilder-capkit
// (default root: $XDG_CONFIG_HOME/kubebuilder/plugins, else ~/.config/kubebuilder/plugins on Linux and
// ~/Library/Application Support/kubebuilder/plugins on macOS), so one command installs it:
//
//	GOBIN=$HOME/.config/kubebuilder/plugins/kubebuilder-capkit/v1-alpha go install github.com/capkit/capkit/cmd/kubebuilder-capkit@latest
//
// The protocol types are written here from Kubebuilder v4.16.0's pkg/plugin/external/types.go, not imported: capkit's
// module does not depend on Kubebuilder. What Kubebuilder v4.16.0 does, read in its source (pkg/cli/options.go,
// pkg/cli/cmd_helpers.go, pkg/plugins/external/*.go, pkg/config/store/yaml/store.go):
//
//   - It runs the executable once per request, in the project directory, and reads stdout only; a non-zero exit
//     loses the response, so errors are reported in the response (Error, ErrorMsgs) and the process exits 0.
//   - Every invocation first sends "metadata" and "flags" for each subcommand (Args ["--init"], ["--api"],
//     ["--webhook"], ["--edit"]); the flags a "flags" response declares are the only plugin flags Kubebuilder
//     accepts. The chosen subcommand's flags then arrive as Args (--group, --version and --kind of "create api"
//     included, --plugins removed).
//   - The request's Universe holds every file under the project directory (Config the PROJECT file, when one exists);
//     Kubebuilder writes every file of the response's Universe, so a response holds only the new and edited files.
//   - Kubebuilder writes the PROJECT file itself after the plugin ran: during init a PROJECT file in the response makes
//     it fail, later its content is overwritten. An external plugin therefore cannot record a domain, repository or
//     resource in PROJECT, which records the plugin (layout) only. "create api" finds the module in go.mod and the
//     domain in the API package's +groupName marker (or --domain, or PROJECT's domain when another plugin set it).
//   - Files are written with mode 0644: an executable script of the scaffold loses its executable bit.
//
// Requests are read with bounds: a request over MaxRequestBytes (or the limit given WithMaxRequestBytes) is refused,
// and a Universe file over MaxFileBytes is not kept (reading it fails with ErrFileTooLarge). The Universe is decoded
// as it streams in, one file at a time, so a project holding built binaries does not cost their size in memory: a
// dropped file costs a decoding buffer that grows to MaxFileBytes once per request, whatever its size (a 200 MB file:
// 23 MB of RSS in all).
package kbplugin
