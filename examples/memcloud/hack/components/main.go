package main

import (
	"path/filepath"

	"github.com/capkit/capkit/release/components"
)

func main() { components.Main(config) }

// config is memcloud's components Config; -config overrides ConfigDir.
var config = components.Config{
	Name:      "memcloud",
	Image:     "${MEMCLOUD_IMAGE:=docker.io/capkit/memcloud:dev}",
	ConfigDir: filepath.Join("examples", "memcloud", "config"),
	Generator: "go run ./examples/memcloud/hack/components",
}
