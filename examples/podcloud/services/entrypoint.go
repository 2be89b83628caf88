package services

import _ "embed"

// Entrypoint is the script a machine's Pod runs as its command, from the bootstrap Secret mounted at
// MountPath. It installs a systemd unit that runs the bootstrap script once, after containerd, and then
// hands over to the kind node image's own entrypoint and systemd. Kept in entrypoint.sh, checked with
// shellcheck by the tests.
//
//go:embed entrypoint.sh
var Entrypoint string

// Paths in the Pod.
const (
	// MountPath is where the bootstrap Secret is mounted.
	MountPath = "/opt/podcloud"
	// EntrypointFile is the entrypoint's file name in the Secret and under MountPath.
	EntrypointFile = "entrypoint.sh"
	// BootstrapFile is the bootstrap script's file name in the Secret and under MountPath.
	BootstrapFile = "bootstrap.sh"
)
