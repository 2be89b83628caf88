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
// Deprecated: use github.com/capkit/capkit/release/components.Config. It has no //go:fix inline directive: it is
// mostly written inside a call of Main, Build or Run, and go fix (Go 1.26) applies no fix at all in a package where
// two fixes overlap (Go 1.26.8: `go fix` then exits 1 and writes nothing in the package). Change the import path by hand: every name is the same there.
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
// Deprecated: use github.com/capkit/capkit/release/components.Main. It has no //go:fix inline directive: a
// provider's hack/components calls it with a Config literal, and go fix would rewrite the call alone, under a second
// import named components0, leaving Config on the old path (see Config). Change the import path by hand.
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
