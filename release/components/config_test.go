package components_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/components"
)

// validConfig returns a Config that passes Validate, for configDir.
func validConfig(configDir string) components.Config {
	return components.Config{
		Name:      "widgetcloud",
		Image:     "${WIDGETCLOUD_IMAGE:=docker.io/example/widgetcloud:dev}",
		ConfigDir: configDir,
		Generator: "go run ./hack/components",
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*components.Config)
		// wantErr is empty for a valid Config, else the start of the error.
		wantErr string
	}{
		{name: "defaults", change: func(*components.Config) {}},
		{name: "explicit namespace, prefix and args", change: func(c *components.Config) {
			c.Namespace, c.Prefix, c.ManagerArgs = "capw-system", "capw-", []string{"--v=2"}
		}},
		{name: "missing name", change: func(c *components.Config) { c.Name = "" }, wantErr: `cannot use Name "": invalid config`},
		{name: "upper-case name", change: func(c *components.Config) { c.Name = "Widget" }, wantErr: `cannot use Name "Widget": invalid config`},
		{name: "name too long for the provider label", change: func(c *components.Config) { c.Name = strings.Repeat("w", 50) },
			wantErr: `cannot use Name "` + strings.Repeat("w", 50) + `": invalid config: gives provider label`},
		{name: "missing image", change: func(c *components.Config) { c.Image = "" }, wantErr: `cannot use Image "": invalid config`},
		{name: "image with a space", change: func(c *components.Config) { c.Image = "a b" }, wantErr: `cannot use Image "a b": invalid config`},
		{name: "missing config folder", change: func(c *components.Config) { c.ConfigDir = "" }, wantErr: `cannot use ConfigDir "": invalid config`},
		{name: "missing generator", change: func(c *components.Config) { c.Generator = " " }, wantErr: `cannot use Generator " ": invalid config`},
		{name: "generator on two lines", change: func(c *components.Config) { c.Generator = "go run\n./x" },
			wantErr: `cannot use Generator "go run\n./x": invalid config`},
		{name: "invalid namespace", change: func(c *components.Config) { c.Namespace = "Widget_System" },
			wantErr: `cannot use Namespace "Widget_System": invalid config`},
		{name: "invalid prefix", change: func(c *components.Config) { c.Prefix = "9w-" },
			wantErr: `cannot use Prefix "9w-": invalid config: gives name "9w-webhook-service"`},
		{name: "prefix too long", change: func(c *components.Config) { c.Prefix = strings.Repeat("w", 50) + "-" },
			wantErr: `cannot use Prefix "` + strings.Repeat("w", 50) + `-": invalid config: gives name "` +
				strings.Repeat("w", 50) + `-webhook-service"`},
		{name: "empty manager argument", change: func(c *components.Config) { c.ManagerArgs = []string{"--v=2", ""} },
			wantErr: `cannot use ManagerArgs[1] "": invalid config`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig("config")
			tt.change(&c)
			err := c.Validate()
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, components.ErrInvalidConfig)
			assert.True(t, strings.HasPrefix(err.Error(), tt.wantErr), "error %q does not start with %q", err, tt.wantErr)

			_, err = components.Build(c)
			assert.ErrorIs(t, err, components.ErrInvalidConfig, "Build validates the Config")
		})
	}
}
