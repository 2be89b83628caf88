package components

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrStale is wrapped by Verify's error when the committed file is not what Build makes.
var ErrStale = errors.New("stale")

// Verify builds the components of cfg and compares them with the file committed beside what controller-gen writes,
// cfg.ConfigDir/infrastructure-components.yaml: a provider's test calls it, so that CI fails when a CRD, the RBAC or
// a webhook changed and the file was not written again. The error of a stale file wraps ErrStale and names the file
// and cfg.Generator, the command that writes it.
func Verify(cfg Config) error {
	want, err := Build(cfg)
	if err != nil {
		return err
	}
	path := filepath.Join(cfg.ConfigDir, "infrastructure-components.yaml")
	got, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot verify the components: %w", err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s is %w: write it again with %s (make generate)", path, ErrStale, cfg.Generator)
	}
	return nil
}
