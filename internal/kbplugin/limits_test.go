package kbplugin

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold"
)

func TestHandleInitQuotesCapkitReplace(t *testing.T) {
	for _, replace := range []string{"/home/a b/capkit", "/src//capkit"} {
		t.Run(replace, func(t *testing.T) {
			res := New().Handle(req(CommandInit, "--repo", "example.com/p", "--provider", "p", "--capkit-replace", replace))
			require.False(t, res.Error, "errors: %q", res.ErrorMsgs)
			name := filepath.Join(t.TempDir(), "go.mod")
			require.NoError(t, os.WriteFile(name, []byte(res.Universe["go.mod"]), 0o644))
			out, err := exec.Command("go", "mod", "edit", "-json", name).CombinedOutput()
			require.NoError(t, err, "%s\ngo.mod:\n%s", out, res.Universe["go.mod"])
			var mod struct {
				Replace []struct{ Old, New struct{ Path string } }
			}
			require.NoError(t, json.Unmarshal(out, &mod))
			require.Len(t, mod.Replace, 1)
			assert.Equal(t, scaffold.CapkitModule, mod.Replace[0].Old.Path)
			assert.Equal(t, replace, mod.Replace[0].New.Path)
		})
	}
}

// requestWithDroppedFile streams a request whose Universe holds the kept files and, between them, a file of size
// bytes of JSON-escaped content (a newline every 64 bytes), which ReadRequest drops.
func requestWithDroppedFile(kept map[string]string, size int) io.Reader {
	head, _ := json.Marshal(map[string]string{"go.mod": kept["go.mod"]})
	tail, _ := json.Marshal(map[string]string{"z.go": kept["z.go"]})
	line := strings.Repeat("x", 63) + `\n`
	body := strings.Repeat(line, size/64)
	parts := []io.Reader{
		strings.NewReader(`{"apiVersion":"v1alpha1","command":"create api","args":["--kind","K"],"universe":`),
		bytes.NewReader(head[:len(head)-1]), strings.NewReader(`,"bin/manager":"`),
	}
	parts = append(parts, strings.NewReader(body), strings.NewReader(`",`), bytes.NewReader(tail[1:]),
		strings.NewReader(`,"pluginChain":["kubebuilder-capkit/v1-alpha"]}`))
	return io.MultiReader(parts...)
}

// allocRead returns the bytes ReadRequest allocates for a request holding kept and a dropped file of size bytes.
func allocRead(t *testing.T, kept map[string]string, size int) uint64 {
	t.Helper()
	in := requestWithDroppedFile(kept, size)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := ReadRequest(in, MaxRequestBytes)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, kept, got.Universe)
	assert.Equal(t, map[string]int{"bin/manager": size / 64 * 64}, got.tooLarge, "the dropped file's decoded size")
	assert.Equal(t, []string{Key}, got.PluginChain)
	return after.TotalAlloc - before.TotalAlloc
}

func TestReadRequestDroppedFileCostsNothing(t *testing.T) {
	kept := map[string]string{"go.mod": "module example.com/p\n", "z.go": strings.Repeat("package z\n", 1000)}
	keptBytes := uint64(len(kept["go.mod"]) + len(kept["z.go"]))
	// The content being decoded is held until it is known to be over MaxFileBytes, in one buffer that doubles.
	const allowance = 2*MaxFileBytes + 1<<20
	small := allocRead(t, kept, 2*MaxFileBytes)
	large := allocRead(t, kept, 64<<20)
	assert.LessOrEqual(t, large, keptBytes*3/2+allowance,
		"ReadRequest allocated %d bytes for %d kept bytes beside a dropped file of %d bytes", large, keptBytes, 64<<20)
	assert.Less(t, large, small+1<<20,
		"a dropped file of 64 MiB costs %d bytes, one of %d bytes %d: its size must not matter", large, 2*MaxFileBytes, small)
}

func TestReadRequestDecodesStringsAsEncodingJSON(t *testing.T) {
	for _, content := range []string{
		``, `plain`, `a\"b\\c\/d\b\f\n\r\t`, `\u00e9\u20AC\ud83d\ude00`, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		"bad \xff utf-8 \xc3", "\xed\xa0\x80 encoded surrogate", `\ud83d alone`, `\ude00 low alone`, `\ud83d\u0041 high then A`,
		`\ud83d\ud83d\ude00 high twice`, `\u0000 nul`, `\u003chtml\u003e`, "\xf0\x9f\x98", `\uD800\uDC00`,
	} {
		t.Run(content, func(t *testing.T) {
			in := `{"universe":{"p\u00e9":"` + content + `"}}`
			var want struct{ Universe map[string]string }
			require.NoError(t, json.Unmarshal([]byte(in), &want))
			got, err := ReadRequest(strings.NewReader(in), MaxRequestBytes)
			require.NoError(t, err)
			assert.Equal(t, want.Universe, got.Universe)
		})
	}
	for _, bad := range []string{`\x`, `\u12`, `\u12G4`, "a\x01b", `\`} {
		t.Run("bad "+bad, func(t *testing.T) {
			in := `{"universe":{"p":"` + bad + `"}}`
			require.Error(t, json.Unmarshal([]byte(in), new(any)), "encoding/json refuses it too")
			_, err := ReadRequest(strings.NewReader(in), MaxRequestBytes)
			require.ErrorContains(t, err, `cannot decode file "p"`)
		})
	}
}

func TestReadRequestDecodesEscapesAcrossTheReadBuffer(t *testing.T) {
	const prefix = `{"universe":{"p":"`
	for _, esc := range []string{`\ud83d\ude00`, `\u00e9`, `\n`, "\xf0\x9f\x98\x80", "\xff"} {
		for off := range 14 {
			pad := strings.Repeat("x", readBufferBytes-len(prefix)-off)
			in := prefix + pad + esc + `","q":"` + strings.Repeat("y", readBufferBytes) + `"}}` // q refills the buffer
			var want struct{ Universe map[string]string }
			require.NoError(t, json.Unmarshal([]byte(in), &want))
			got, err := ReadRequest(strings.NewReader(in), MaxRequestBytes)
			require.NoError(t, err)
			require.Equal(t, want.Universe["p"][len(pad):], got.Universe["p"][len(pad):], "%q %d bytes before the end of the buffer", esc, off)
		}
	}
}

func FuzzReadRequestUniverse(f *testing.F) {
	for _, s := range []string{`a\nb`, `\ud83d\ude00`, "\xff", `\ud83d`, `\u00e9`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		in := `{"universe":{"p":"` + content + `"}}`
		var want struct{ Universe map[string]string }
		wantErr := json.Unmarshal([]byte(in), &want)
		got, err := ReadRequest(strings.NewReader(in), MaxRequestBytes)
		if wantErr != nil {
			require.Error(t, err, "encoding/json: %v", wantErr)
			return
		}
		require.NoError(t, err)
		require.Equal(t, want.Universe, got.Universe)
	})
}
