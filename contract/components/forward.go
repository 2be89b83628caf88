package components

import (
	"io"

	"github.com/capkit/capkit/release/components"
)

// Build calls release/components.Build.
//
// Deprecated: use github.com/capkit/capkit/release/components.Build.
//
//go:fix inline
func Build(cfg components.Config) ([]byte, error) {
	return components.Build(cfg)
}

// Config is release/components.Config.
//
// Deprecated: use github.com/capkit/capkit/release/components.Config.
//
//go:fix inline
type Config = components.Config

// ErrInvalidConfig is release/components.ErrInvalidConfig.
//
// Deprecated: use github.com/capkit/capkit/release/components.ErrInvalidConfig.
var ErrInvalidConfig = components.ErrInvalidConfig

// ErrUsage is release/components.ErrUsage.
//
// Deprecated: use github.com/capkit/capkit/release/components.ErrUsage.
var ErrUsage = components.ErrUsage

// Main calls release/components.Main.
//
// Deprecated: use github.com/capkit/capkit/release/components.Main.
//
//go:fix inline
func Main(cfg components.Config) {
	components.Main(cfg)
}

// Run calls release/components.Run.
//
// Deprecated: use github.com/capkit/capkit/release/components.Run.
//
//go:fix inline
func Run(cfg components.Config, args []string, stderr io.Writer) error {
	return components.Run(cfg, args, stderr)
}
