package accessorgen

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// diamondSource is a package whose root type's spec is a diamond of embedded structs levels deep: L_i embeds
// A_i and B_i inline, which both embed L_{i+1}, so 2^levels paths of embedded fields reach the last L. The last L
// declares providerID; with shallow, L_0 declares one too, which then wins.
func diamondSource(levels int, shallow bool) string {
	var b strings.Builder
	b.WriteString("package api\n\n")
	for i := range levels {
		fmt.Fprintf(&b, "type L%d struct {\n\tA%d `json:\",inline\"`\n\tB%d `json:\",inline\"`\n", i, i, i)
		if i == 0 && shallow {
			b.WriteString("\tProviderID string `json:\"providerID\"`\n")
		}
		fmt.Fprintf(&b, "}\n\ntype A%d struct {\n\tL%d `json:\",inline\"`\n}\n\n", i, i+1)
		fmt.Fprintf(&b, "type B%d struct {\n\tL%d `json:\",inline\"`\n}\n\n", i, i+1)
	}
	fmt.Fprintf(&b, "type L%d struct {\n\tProviderID string `json:\"providerID\"`\n}\n\n", levels)
	b.WriteString("// +kubebuilder:object:root=true\ntype Root struct {\n\tSpec L0 `json:\"spec\"`\n}\n")
	return b.String()
}

// chainSource is a package whose root type's spec is T0, where each T_i embeds T_{i+1} inline and T_n declares
// providerID.
func chainSource(n int) string {
	var b strings.Builder
	b.WriteString("package api\n\n")
	for i := range n {
		fmt.Fprintf(&b, "type T%d struct{ T%d `json:\",inline\"` }\n", i, i+1)
	}
	fmt.Fprintf(&b, "type T%d struct{ ProviderID string `json:\"providerID\"` }\n\n", n)
	b.WriteString("// +kubebuilder:object:root=true\ntype Root struct {\n\tSpec T0 `json:\"spec\"`\n}\n")
	return b.String()
}

// manySource is a package whose root type's spec embeds n structs that each declare providerID.
func manySource(n int) string {
	var b strings.Builder
	b.WriteString("package api\n\n")
	for i := range n {
		fmt.Fprintf(&b, "type P%d struct{ ProviderID string `json:\"providerID\"` }\n", i)
	}
	b.WriteString("\ntype Spec struct {\n")
	for i := range n {
		fmt.Fprintf(&b, "\tP%d `json:\",inline\"`\n", i)
	}
	b.WriteString("}\n\n// +kubebuilder:object:root=true\ntype Root struct {\n\tSpec Spec `json:\"spec\"`\n}\n")
	return b.String()
}

// lastLine is the number of the line of src where s last occurs.
func lastLine(src, s string) string {
	return strconv.Itoa(strings.Count(src[:strings.LastIndex(src, s)], "\n") + 1)
}

// TestGenerateWorkIsLinear generates the accessors of packages whose embedded structs are reached by
// exponentially many paths (a diamond) or lie thousands deep (a chain): the walk expands each struct type at most
// once and allocates a bounded number of bytes per type, an ambiguous field's error stays one short line, and a
// field deeper than maxDepth is refused (formatting its selector would take time quadratic in its length).
func TestGenerateWorkIsLinear(t *testing.T) {
	var chainPath []string // to the field of chainSource(maxDepth)
	for i := 1; i <= maxDepth; i++ {
		chainPath = append(chainPath, fmt.Sprintf("T%d", i))
	}
	tests := []struct {
		name    string
		src     string
		types   int    // struct types under the root, each to be expanded at most once
		want    string // a line of the output
		wantErr string
	}{
		{
			name: "diamond of 10 levels", src: diamondSource(10, false), types: 3*10 + 1,
			wantErr: "cannot generate accessors for Root: spec.providerID (types.go:" + lastLine(diamondSource(10, false), "ProviderID") +
				") is reached through more than one path of embedded structs at the same depth",
		},
		{
			name: "diamond of 30 levels", src: diamondSource(30, false), types: 3*30 + 1,
			wantErr: "cannot generate accessors for Root: spec.providerID (types.go:" + lastLine(diamondSource(30, false), "ProviderID") +
				") is reached through more than one path of embedded structs at the same depth",
		},
		{name: "diamond of 30 levels under a shallow field", src: diamondSource(30, true), types: 3*30 + 1, want: "\treturn r.Spec.ProviderID\n"},
		{
			name: "twelve declarations at one depth", src: manySource(12), types: 13,
			wantErr: "cannot generate accessors for Root: spec.providerID is declared 12 times at the same depth (types.go:3, types.go:4, " +
				"types.go:5, types.go:6, types.go:7, types.go:8, types.go:9, types.go:10, types.go:11, types.go:12, and 2 more)",
		},
		{
			name: "types embedding each other through pointers", types: 2, want: "\treturn r.Spec.ProviderID\n",
			src: "package api\n\ntype A struct {\n\t*B `json:\",inline\"`\n\tProviderID string `json:\"providerID\"`\n}\n\n" +
				"type B struct {\n\t*A `json:\",inline\"`\n\tName string `json:\"name\"`\n}\n\n" +
				"// +kubebuilder:object:root=true\ntype Root struct {\n\tSpec A `json:\"spec\"`\n}\n",
		},
		{
			name: "chain of 5000 types", src: chainSource(5000), types: 5000 + 1,
			wantErr: "cannot generate accessors for Root: spec.providerID (types.go:" + lastLine(chainSource(5000), "ProviderID") + ") is reached through 5000 embedded structs, " +
				"more than the limit of 100; declare GetProviderID and SetProviderID by hand",
		},
		{
			name: "chain as deep as the limit", src: chainSource(maxDepth), types: maxDepth + 1,
			want: "\treturn r.Spec." + strings.Join(chainPath, ".") + ".ProviderID\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "types.go"), []byte(tt.src), 0o600))
			g, err := newGenerator(dir, DefaultOutput, defaultLimits)
			require.NoError(t, err)

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got, err := g.generate()
			runtime.ReadMemStats(&after)

			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
			} else {
				require.NoError(t, err)
				assert.Contains(t, string(got), tt.want)
			}
			assert.LessOrEqual(t, g.expansions, tt.types, "struct types expanded")
			// The walk and the output need a few hundred bytes per type, after some 25 KiB of formatting; a path
			// copied per field is quadratic in a chain (about 200 MB for this one), a path per way through a
			// diamond exponential.
			allocated := after.TotalAlloc - before.TotalAlloc
			assert.LessOrEqual(t, allocated, uint64(64<<10+tt.types*4<<10), "bytes allocated")
			t.Logf("%d expansions, %d bytes allocated", g.expansions, allocated)
		})
	}
}
