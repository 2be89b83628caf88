package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// machinePool is what CreateMachinePool adds to a repository Init wrote: new files, and the whole new contents of
// the generated files (deepcopy, accessors, RBAC, webhooks, components) as make generate writes them after the
// addition.
//
//go:embed machinepool
var machinePool embed.FS

const machinePoolRoot = "machinepool"

// generatedGo are the generated Go files of the API package, which gain the machine pool's functions.
var generatedGo = []string{"api/v1beta2/zz_generated.deepcopy.go", "api/v1beta2/" + accessorsFile}

// generatedYAML are the generated files that CreateMachinePool replaces only when Init wrote them as they are.
var generatedYAML = []string{"config/rbac/role.yaml", "config/webhook/manifests.yaml", "config/infrastructure-components.yaml"}

// edit is an insertion before the line of a marker comment in a hand-written file.
type edit struct {
	path, marker, text string
}

// machinePoolEdits are the edits of the files Init wrote (in the template's placeholders).
var machinePoolEdits = []edit{
	{"api/v1beta2/groupversion_info.go", "// +capkit:scaffold:types", "\t\t&QuuxMachinePool{}, &QuuxMachinePoolList{},\n"},
	{"api/v1beta2/contract_test.go", "// +capkit:scaffold:contracttest", "\t\t{&v1beta2.QuuxMachinePool{}, lint.KindInfraMachinePool},\n"},
	{"controllers/controllers.go", "// +capkit:scaffold:controllers", "\tif err := setupMachinePool(mgr, c, cl, opts...); err != nil {\n\t\treturn err\n\t}\n"},
	{"controllers/rbac.go", "// +capkit:scaffold:rbac", `// +kubebuilder:rbac:groups=infrastructure.sample.capkit.io,resources=quuxmachinepools,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=infrastructure.sample.capkit.io,resources=quuxmachinepools/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=infrastructure.sample.capkit.io,resources=quuxmachinepools/finalizers,verbs=update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools,verbs=get;list;watch
`},
	{"webhooks/setup.go", "// +capkit:scaffold:webhookmarkers", `// +kubebuilder:webhook:path=/mutate-infrastructure-sample-capkit-io-v1beta2-quuxmachinepool,mutating=true,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxmachinepools,verbs=create;update,versions=v1beta2,name=default.quuxmachinepool.infrastructure.sample.capkit.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-infrastructure-sample-capkit-io-v1beta2-quuxmachinepool,mutating=false,failurePolicy=fail,sideEffects=None,groups=infrastructure.sample.capkit.io,resources=quuxmachinepools,verbs=create;update,versions=v1beta2,name=validation.quuxmachinepool.infrastructure.sample.capkit.io,admissionReviewVersions=v1
`},
	{"webhooks/setup.go", "// +capkit:scaffold:webhooks", "\thooks = append(hooks, QuuxMachinePool)\n"},
}

func createMachinePool(o Options, existing func(path string) ([]byte, error)) (Files, error) {
	r, err := resolve(o)
	if err != nil {
		return nil, err
	}
	if existing == nil {
		return nil, errors.New("cannot add the machine pool: existing is nil")
	}
	kind := r.kind + "MachinePool"
	added, err := render(machinePool, machinePoolRoot, r)
	if err != nil {
		return nil, err
	}
	initial, err := render(template, templateRoot, r)
	if err != nil {
		return nil, err
	}
	out := Files{}
	for p, data := range added {
		if isGenerated(p) {
			continue
		}
		if _, err := existing(p); err == nil {
			return nil, fmt.Errorf("cannot add the machine pool: file %q exists: %s is there already", p, kind)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cannot add the machine pool: cannot read file %q: %w", p, err)
		}
		out[p] = data
	}
	rep := r.replacer()
	for _, e := range machinePoolEdits {
		p := rep.Replace(e.path)
		data, ok := out[p] // a file edited twice
		if !ok {
			if data, err = existing(p); err != nil {
				return nil, fmt.Errorf("cannot add the machine pool: cannot read file %q: %w", p, err)
			}
		}
		edited, err := insertBefore(data, e.marker, rep.Replace(e.text))
		if err != nil {
			return nil, fmt.Errorf("cannot add the machine pool to file %q: %w", p, err)
		}
		if path.Ext(p) == ".go" {
			if edited, err = format.Source(edited); err != nil {
				return nil, fmt.Errorf("cannot add the machine pool to file %q: %w", p, err)
			}
		}
		out[p] = edited
	}
	for _, p := range generatedYAML {
		data, err := existing(p)
		if a, ok := added[p]; ok && err == nil && bytes.Equal(data, initial[p]) {
			out[p] = a // as make generate writes it; a changed file waits for make generate
		}
	}
	for _, p := range generatedGo {
		data, err := existing(p)
		if err != nil {
			return nil, fmt.Errorf("cannot add the machine pool: cannot read file %q: %w", p, err)
		}
		if bytes.Equal(data, initial[p]) {
			out[p] = added[p]
			continue
		}
		// The API changed since Init: append the machine pool's functions; make generate puts them in order.
		merged, err := appendFuncs(data, added[p], kind)
		if err != nil {
			return nil, fmt.Errorf("cannot add the machine pool to file %q: %w", p, err)
		}
		out[p] = merged
	}
	return out, nil
}

// isGenerated reports whether p is a generated file that CreateMachinePool edits rather than adds.
func isGenerated(p string) bool {
	for _, g := range append(append([]string{}, generatedGo...), generatedYAML...) {
		if p == g {
			return true
		}
	}
	return false
}

// insertBefore inserts text before the line that holds marker.
func insertBefore(data []byte, marker, text string) ([]byte, error) {
	s := string(data)
	i := strings.Index(s, marker)
	if i < 0 {
		return nil, fmt.Errorf("cannot find the marker %q", marker)
	}
	if strings.Contains(s, text) {
		return nil, fmt.Errorf("it already holds %q", strings.TrimSpace(text))
	}
	line := strings.LastIndex(s[:i], "\n") + 1
	return []byte(s[:line] + text + s[line:]), nil
}

// funcRE matches a top-level function or method declaration with its doc comment, up to the closing brace at
// the start of a line.
var funcRE = regexp.MustCompile(`(?ms)(?:^//[^\n]*\n)*^func \(\w+ \*(\w+)\)[^\n]*\n.*?^}\n`)

// appendFuncs appends to data the methods of from whose receiver's type starts with kind.
func appendFuncs(data, from []byte, kind string) ([]byte, error) {
	var b bytes.Buffer
	b.Write(data)
	n := 0
	for _, m := range funcRE.FindAllSubmatchIndex(from, -1) {
		if strings.HasPrefix(string(from[m[2]:m[3]]), kind) {
			b.WriteString("\n")
			b.Write(from[m[0]:m[1]])
			n++
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("no method of %s to add", kind)
	}
	return format.Source(b.Bytes())
}
