package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/capkit/capkit/internal/scaffold"
)

const (
	// templateModule is the module path of the scaffold's template (see internal/scaffold/doc.go).
	templateModule = "github.com/capkit/capkit/internal/scaffold/template"
	// module is the module path of the provider regen generates: not capkit's, and found in no generated file
	// but where the module path is (the image of hack/components is example.com/cluster-api-provider-quux).
	module = "example.com/capkit-regen/cluster-api-provider-quux"
	// goSuffix is the suffix of the Go files of the machinepool folder, which belong to no package of capkit.
	goSuffix = ".tmpl"
	// timeout bounds make generate in the temporary project.
	timeout = 10 * time.Minute
)

// options are the template's placeholders: the files generated for them are the machinepool folder's as they are.
func options(capkit string) scaffold.Options {
	return scaffold.Options{Module: module, Provider: "quux", Domain: "sample.capkit.io", CapkitReplace: capkit}
}

func main() {
	controllerGen := flag.String("controller-gen", os.Getenv("CONTROLLER_GEN"), "controller-gen v0.21.0 binary (default $CONTROLLER_GEN)")
	capkit := flag.String("capkit", ".", "the capkit checkout, which the generated provider's go.mod replaces capkit by")
	out := flag.String("out", filepath.Join("internal", "scaffold", "machinepool"), "the machinepool folder to write")
	keep := flag.Bool("keep", false, "keep the temporary project and print its path")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "regen: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*controllerGen, *capkit, *out, *keep); err != nil {
		fmt.Fprintf(os.Stderr, "regen: %v\n", err)
		os.Exit(1)
	}
}

func run(controllerGen, capkit, out string, keep bool) error {
	if controllerGen == "" {
		return errors.New("no controller-gen: set -controller-gen or $CONTROLLER_GEN")
	}
	cg, err := filepath.Abs(controllerGen)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(capkit)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "capkit-regen-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintf(os.Stderr, "regen: project in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	o := options(root)
	initial, err := scaffold.Init(o)
	if err != nil {
		return err
	}
	if err := scaffold.Write(dir, initial, false); err != nil {
		return err
	}
	mp, err := scaffold.CreateMachinePool(o, func(p string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	})
	if err != nil {
		return err
	}
	if err := scaffold.Write(dir, mp, true); err != nil {
		return err
	}
	before, err := snapshot(dir)
	if err != nil {
		return err
	}
	if err := makeGenerate(dir, cg); err != nil {
		return err
	}
	after, err := snapshot(dir)
	if err != nil {
		return err
	}
	want, err := machinePoolFiles(initial, before, after)
	if err != nil {
		return err
	}
	return writeBack(out, want)
}

// makeGenerate runs the project's make generate in dir with controller-gen cg, without the make variables of a
// make that runs regen.
func makeGenerate(dir, cg string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "generate", "CONTROLLER_GEN="+cg)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "MAKEFLAGS" && name != "MFLAGS" && name != "MAKELEVEL" && name != "GOFLAGS" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GOFLAGS=-buildvcs=false")
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("make generate in %s: %w\n%s", dir, err, output.String())
	}
	return nil
}

// generated reports whether p, relative to the project's root, is a file make generate writes.
func generated(p string) bool {
	base := path.Base(p)
	return strings.HasPrefix(base, "zz_generated.") && strings.HasSuffix(base, ".go") ||
		strings.HasPrefix(p, "config/crd/") || strings.HasPrefix(p, "config/rbac/") ||
		strings.HasPrefix(p, "config/webhook/") || p == "config/infrastructure-components.yaml"
}

// machinePoolFiles returns the files of the machinepool folder by path: the generated files of after (the
// project after make generate) that Init (initial) does not write as they are, mapped back to the template. It
// fails when make generate changed a hand-written file of before (the project Init and CreateMachinePool wrote).
func machinePoolFiles(initial, before, after scaffold.Files) (map[string][]byte, error) {
	var changed []string
	for p := range mergeKeys(before, after) {
		if generated(p) || p == "go.mod" || p == "go.sum" {
			continue
		}
		if b, ok := before[p]; !ok || !bytes.Equal(b, after[p]) {
			changed = append(changed, p)
		}
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		return nil, fmt.Errorf("make generate added, removed or changed files that are not generated: %s", strings.Join(changed, ", "))
	}
	want := map[string][]byte{}
	for p, data := range after {
		if !generated(p) {
			continue
		}
		if init, ok := initial[p]; ok && bytes.Equal(init, data) {
			continue
		}
		if path.Ext(p) == ".go" {
			p += goSuffix
		}
		want[p] = bytes.ReplaceAll(data, []byte(module), []byte(templateModule))
	}
	return want, nil
}

// writeBack writes the files of want under out when they differ, and removes the generated files of out that
// are not in want.
func writeBack(out string, want map[string][]byte) error {
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(out, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if _, ok := want[rel]; !ok && generated(strings.TrimSuffix(rel, goSuffix)) {
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for rel, data := range want {
		p := filepath.Join(out, filepath.FromSlash(rel))
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// snapshot returns the files under dir but those of the tools (bin).
func snapshot(dir string) (scaffold.Files, error) {
	files := scaffold.Files{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		files[rel] = data
		return err
	})
	return files, err
}

// mergeKeys returns the set of the paths of a and b.
func mergeKeys(a, b scaffold.Files) map[string]bool {
	keys := map[string]bool{}
	for p := range a {
		keys[p] = true
	}
	for p := range b {
		keys[p] = true
	}
	return keys
}
