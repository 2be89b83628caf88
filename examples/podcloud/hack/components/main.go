package main

import (
	"path/filepath"

	"github.com/capkit/capkit/release/components"
)

func main() { components.Main(config) }

// config is podcloud's components Config; -config overrides ConfigDir.
var config = components.Config{
	Name:      "podcloud",
	Image:     "${PODCLOUD_IMAGE:=docker.io/capkit/podcloud:dev}",
	ConfigDir: filepath.Join("examples", "podcloud", "config"),
	Generator: "go run ./examples/podcloud/hack/components",
}
