package cloudinit

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden and README-snippet.md")

// samples are realistic CABPK cloud-configs: control-plane init (every encoding, users, ntp,
// disk_setup, fs_setup, mounts), control-plane join and worker join.
var samples = []string{"controlplane-init", "controlplane-join", "worker-join"}

func TestRenderGolden(t *testing.T) {
	for _, name := range samples {
		t.Run(name, func(t *testing.T) {
			data := readTestdata(t, name+".yaml")
			script, err := Render(mustParse(t, data, WithVariables(testVars)))
			require.NoError(t, err)
			golden := filepath.Join("testdata", "golden", name+".sh")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, script, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -update to create the golden file")
			if diff := firstDiff(string(want), string(script)); diff != "" {
				t.Fatalf("rendered script differs from %s (go test -update rewrites it): %s", golden, diff)
			}
			checkScript(t, script)

			again, err := Render(mustParse(t, data, WithVariables(testVars)))
			require.NoError(t, err)
			require.Equal(t, script, again, "rendering is not deterministic")
		})
	}
}

// firstDiff describes the first line that differs between want and got, or returns "".
func firstDiff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, wl, gl)
		}
	}
	return "contents differ"
}
