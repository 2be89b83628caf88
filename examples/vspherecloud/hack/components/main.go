package main

import (
	"path/filepath"

	"github.com/capkit/capkit/release/components"
)

func main() { components.Main(config) }

// config is vspherecloud's components Config; -config overrides ConfigDir.
var config = components.Config{
	Name:      "vspherecloud",
	Image:     "${VSPHERECLOUD_IMAGE:=docker.io/capkit/vspherecloud:dev}",
	ConfigDir: filepath.Join("examples", "vspherecloud", "config"),
	Generator: "go run ./examples/vspherecloud/hack/components",
	// The credentials Secrets of VSphereClusterIdentities live in vspherecloud's own namespace.
	ManagerArgs: []string{"--identity-namespace=vspherecloud-system"},
}
