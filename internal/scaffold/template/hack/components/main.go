// Command components writes config/infrastructure-components.yaml, the file clusterctl init applies to install
// the provider, from controller-gen's output in config (make generate runs it from the repository root).
package main

import "github.com/capkit/capkit/release/components"

func main() {
	components.Main(components.Config{
		Name:      "quux",
		Image:     "${QUUX_IMAGE:=example.com/cluster-api-provider-quux:dev}",
		ConfigDir: "config",
		Generator: "go run ./hack/components",
	})
}
