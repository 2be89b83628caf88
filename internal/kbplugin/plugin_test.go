package kbplugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold"
)

// fakeScaffolder records the options it got and returns fixed files; CreateMachinePool reads "go.mod" and
// "cmd/main.go" through existing, as the real scaffold edits files Init wrote.
type fakeScaffolder struct {
	got      scaffold.Options
	files    scaffold.Files
	err      error
	readErrs map[string]error
}

func (f *fakeScaffolder) Init(o scaffold.Options) (scaffold.Files, error) {
	f.got = o
	return f.files, f.err
}

func (f *fakeScaffolder) CreateMachinePool(o scaffold.Options, existing func(string) ([]byte, error)) (scaffold.Files, error) {
	f.got = o
	f.readErrs = map[string]error{}
	for _, name := range []string{"go.mod", "cmd/main.go", "bin/tool", "missing.go"} {
		_, err := existing(name)
		f.readErrs[name] = err
	}
	return f.files, f.err
}

const goMod = "// a provider\nmodule github.com/acme/cluster-api-provider-acme // the module\n\ngo 1.26\n"

const groupVersionInfo = "// Package v1beta2 ...\n// +kubebuilder:object:generate=true\n// +groupName=infrastructure.acme.io\npackage v1beta2\n"

func req(command string, args ...string) Request {
	return Request{APIVersion: APIVersion, Command: command, Args: args, Universe: map[string]string{}}
}

func withUniverse(r Request, files map[string]string) Request {
	r.Universe = files
	return r
}

func TestHandleInit(t *testing.T) {
	files := scaffold.Files{"go.mod": []byte("module x\n"), "cmd/main.go": []byte("package main\n"), "PROJECT": []byte("layout: x\n")}
	tests := []struct {
		name      string
		req       Request
		err       error
		want      scaffold.Options
		wantFiles []string
		wantErr   string
	}{
		{
			name: "all flags, both spellings",
			req: req(CommandInit, "--repo", "github.com/acme/cluster-api-provider-acme", "--provider=acme", "--domain", "acme.io",
				"--capkit-version", "v0.3.0", "--capkit-replace", "/src/capkit", "--project-version", "3"),
			want: scaffold.Options{Module: "github.com/acme/cluster-api-provider-acme", Provider: "acme", Domain: "acme.io",
				CapkitVersion: "v0.3.0", CapkitReplace: "/src/capkit"},
			wantFiles: []string{"cmd/main.go", "go.mod"},
		},
		{
			name:      "domain left to the scaffold's default",
			req:       req(CommandInit, "--repo", "example.com/p", "--provider", "p"),
			want:      scaffold.Options{Module: "example.com/p", Provider: "p"},
			wantFiles: []string{"cmd/main.go", "go.mod"},
		},
		{name: "repo missing", req: req(CommandInit, "--provider", "acme"), wantErr: "cannot scaffold: flag --repo is required"},
		{name: "provider missing", req: req(CommandInit, "--repo", "x.io/p"), wantErr: "flag --provider is required"},
		{name: "unknown flag", req: req(CommandInit, "--repo", "x.io/p", "--provider", "p", "--owner", "me"),
			wantErr: `cannot parse the arguments ["--repo" "x.io/p" "--provider" "p" "--owner" "me"] of "init": flag provided but not defined: -owner`},
		{name: "stray argument", req: req(CommandInit, "--repo", "x.io/p", "--provider", "p", "extra"), wantErr: `unexpected ["extra"]`},
		{name: "scaffold refuses", req: req(CommandInit, "--repo", "x.io/p", "--provider", "Bad Name"), err: errors.New(`cannot scaffold: invalid Provider "Bad Name"`),
			wantErr: `cannot scaffold the provider: cannot scaffold: invalid Provider "Bad Name"`},
		{name: "directory not empty",
			req:     withUniverse(req(CommandInit, "--repo", "x.io/p", "--provider", "p"), map[string]string{"go.mod": "module y\n", "README.md": "hi"}),
			wantErr: `cannot scaffold into a directory that holds ["go.mod"]: kubebuilder-capkit/v1-alpha writes the whole repository`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeScaffolder{files: copyFiles(files), err: tt.err}
			res := New(WithScaffolder(fake)).Handle(tt.req)
			assert.Equal(t, APIVersion, res.APIVersion)
			assert.Equal(t, CommandInit, res.Command)
			if tt.wantErr != "" {
				require.True(t, res.Error, "response: %+v", res)
				require.Len(t, res.ErrorMsgs, 1)
				assert.Contains(t, res.ErrorMsgs[0], tt.wantErr)
				assert.Empty(t, res.Universe)
				return
			}
			require.False(t, res.Error, "errors: %q", res.ErrorMsgs)
			assert.Equal(t, tt.want, fake.got)
			assert.ElementsMatch(t, tt.wantFiles, keys(res.Universe), "PROJECT is left to Kubebuilder")
			assert.Equal(t, "module x\n", res.Universe["go.mod"])
		})
	}
}

func TestHandleCreateAPI(t *testing.T) {
	project := map[string]string{
		"go.mod":                              goMod,
		"cmd/main.go":                         "package main\n",
		"api/v1beta2/groupversion_info.go":    groupVersionInfo,
		"api/v1beta2/acmecluster_types.go":    "package v1beta2\n",
		"config/crd/bases/infrastructure.yml": "kind: CustomResourceDefinition\n",
	}
	newFiles := scaffold.Files{
		"api/v1beta2/acmemachinepool_types.go": []byte("package v1beta2\n"),
		"cmd/main.go":                          []byte("package main\n// edited\n"),
		"go.mod":                               []byte(goMod), // unchanged: left out of the response
		"PROJECT":                              []byte("resources: []\n"),
	}
	apiArgs := []string{"--group", "infrastructure", "--version", "v1beta2", "--kind", "AcmeMachinePool"}
	tests := []struct {
		name      string
		req       Request
		workDir   fs.FS
		want      scaffold.Options
		wantFiles []string
		wantErr   string
	}{
		{
			name:      "provider from the kind, module from go.mod, domain from the group marker",
			req:       withUniverse(req(CommandCreateAPI, apiArgs...), project),
			want:      scaffold.Options{Module: "github.com/acme/cluster-api-provider-acme", Provider: "acme", Domain: "acme.io"},
			wantFiles: []string{"api/v1beta2/acmemachinepool_types.go", "cmd/main.go"},
		},
		{
			name: "flags and PROJECT win",
			req: func() Request {
				r := withUniverse(req(CommandCreateAPI, append(apiArgs, "--provider", "acme", "--domain", "flag.io", "--capkit-replace", "/src/capkit")...), project)
				r.Config = map[string]any{"repo": "github.com/from/project", "domain": "project.io", "layout": []any{Key}}
				return r
			}(),
			want:      scaffold.Options{Module: "github.com/from/project", Provider: "acme", Domain: "flag.io", CapkitReplace: "/src/capkit"},
			wantFiles: []string{"api/v1beta2/acmemachinepool_types.go", "cmd/main.go"},
		},
		{
			name:      "empty universe: the working directory",
			req:       req(CommandCreateAPI, apiArgs...),
			workDir:   mapFS(project),
			want:      scaffold.Options{Module: "github.com/acme/cluster-api-provider-acme", Provider: "acme", Domain: "acme.io"},
			wantFiles: []string{"api/v1beta2/acmemachinepool_types.go", "cmd/main.go"},
		},
		{name: "other kind", req: withUniverse(req(CommandCreateAPI, "--group", "infrastructure", "--version", "v1beta2", "--kind", "AcmeWidget"), project),
			wantErr: `cannot create kind "AcmeWidget": kubebuilder-capkit/v1-alpha supports --kind <Provider>MachinePool only`},
		{name: "bare MachinePool", req: withUniverse(req(CommandCreateAPI, "--group", "infrastructure", "--version", "v1beta2", "--kind", "MachinePool"), project),
			wantErr: `cannot create kind "MachinePool"`},
		{name: "other group", req: withUniverse(req(CommandCreateAPI, "--group", "batch", "--version", "v1beta2", "--kind", "AcmeMachinePool"), project),
			wantErr: `cannot create an API in group "batch": kubebuilder-capkit/v1-alpha supports --group infrastructure`},
		{name: "other version", req: withUniverse(req(CommandCreateAPI, "--group", "infrastructure", "--version", "v1", "--kind", "AcmeMachinePool"), project),
			wantErr: `cannot create an API of version "v1": kubebuilder-capkit/v1-alpha supports --version v1beta2`},
		{name: "kind of another provider", req: withUniverse(req(CommandCreateAPI, append(apiArgs, "--provider", "other")...), project),
			wantErr: `cannot create kind "AcmeMachinePool" for provider "other": want --kind AcmeMachinePool`},
		{name: "no go.mod", req: withUniverse(req(CommandCreateAPI, apiArgs...), map[string]string{"README.md": "x"}),
			wantErr: `cannot find the project's module: cannot read file "go.mod": file does not exist`},
		{name: "no domain marker", req: withUniverse(req(CommandCreateAPI, apiArgs...), map[string]string{"go.mod": goMod}),
			wantErr: `cannot find the API group's domain: no "+groupName=infrastructure.<domain>" marker under "api/"; pass --domain`},
		{name: "two domains",
			req: withUniverse(req(CommandCreateAPI, apiArgs...), map[string]string{"go.mod": goMod, "api/v1beta2/a.go": groupVersionInfo,
				"api/v1beta3/b.go": "// +groupName=infrastructure.other.io\n"}),
			wantErr: `cannot choose the API group's domain among ["acme.io" "other.io"]; pass --domain`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeScaffolder{files: copyFiles(newFiles)}
			opts := []Option{WithScaffolder(fake)}
			if tt.workDir != nil {
				opts = append(opts, WithWorkDir(tt.workDir))
			}
			res := New(opts...).Handle(tt.req)
			assert.Equal(t, CommandCreateAPI, res.Command)
			if tt.wantErr != "" {
				require.True(t, res.Error, "response: %+v", res)
				assert.Contains(t, res.ErrorMsgs[0], tt.wantErr)
				return
			}
			require.False(t, res.Error, "errors: %q", res.ErrorMsgs)
			assert.Equal(t, tt.want, fake.got)
			assert.ElementsMatch(t, tt.wantFiles, keys(res.Universe), "only new and edited files; PROJECT is Kubebuilder's")
			assert.NoError(t, fake.readErrs["go.mod"])
			assert.ErrorIs(t, fake.readErrs["missing.go"], fs.ErrNotExist)
		})
	}
}

func TestCreateAPIReadsNoDroppedFile(t *testing.T) {
	var in bytes.Buffer
	universe := map[string]string{"go.mod": goMod, "api/v1beta2/groupversion_info.go": groupVersionInfo,
		"bin/tool": strings.Repeat("x", MaxFileBytes+1)}
	require.NoError(t, json.NewEncoder(&in).Encode(Request{APIVersion: APIVersion, Command: CommandCreateAPI,
		Args: []string{"--group", "infrastructure", "--version", "v1beta2", "--kind", "AcmeMachinePool"}, Universe: universe}))
	r, err := ReadRequest(&in, MaxRequestBytes)
	require.NoError(t, err)
	assert.NotContains(t, r.Universe, "bin/tool", "a large file is not kept")

	fake := &fakeScaffolder{files: scaffold.Files{"a.go": []byte("package a\n")}}
	res := New(WithScaffolder(fake)).Handle(r)
	require.False(t, res.Error, "errors: %q", res.ErrorMsgs)
	assert.ErrorIs(t, fake.readErrs["bin/tool"], ErrFileTooLarge, "a dropped file is an error, not a missing file")
	assert.NotErrorIs(t, fake.readErrs["bin/tool"], fs.ErrNotExist)
}

func TestHandleRefusesBadPathsFromTheScaffold(t *testing.T) {
	for _, name := range []string{"../escape", "/abs", "a/../b", "a//b", "."} {
		t.Run(name, func(t *testing.T) {
			fake := &fakeScaffolder{files: scaffold.Files{name: []byte("x")}}
			res := New(WithScaffolder(fake)).Handle(req(CommandInit, "--repo", "x.io/p", "--provider", "p"))
			require.True(t, res.Error)
			assert.Contains(t, res.ErrorMsgs[0], "not a clean relative path inside the project")
		})
	}
}

func TestHandleUnsupported(t *testing.T) {
	tests := []struct {
		name    string
		req     Request
		wantErr string
	}{
		{name: "create webhook", req: req(CommandCreateWebhook, "--kind", "AcmeCluster"),
			wantErr: `cannot run command "create webhook": kubebuilder-capkit/v1-alpha supports "init" and "create api" (with --kind <Provider>MachinePool)`},
		{name: "edit", req: req(CommandEdit), wantErr: `cannot run command "edit"`},
		{name: "unknown", req: req("delete api"), wantErr: `cannot run command "delete api"`},
		{name: "other apiVersion", req: Request{APIVersion: "v1", Command: CommandInit},
			wantErr: `cannot handle apiVersion "v1": kubebuilder-capkit/v1-alpha supports "v1alpha1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := New(WithScaffolder(&fakeScaffolder{})).Handle(tt.req)
			require.True(t, res.Error)
			require.Len(t, res.ErrorMsgs, 1)
			assert.Contains(t, res.ErrorMsgs[0], tt.wantErr)
			assert.Equal(t, tt.req.Command, res.Command)
		})
	}
}

func TestFlagsAndMetadata(t *testing.T) {
	names := func(flags []Flag) []string {
		var out []string
		for _, f := range flags {
			out = append(out, f.Name)
		}
		return out
	}
	tests := []struct {
		sub       string
		wantFlags []string
		wantDesc  string
	}{
		{sub: "--init", wantFlags: []string{"repo", "provider", "domain", "capkit-version", "capkit-replace"}, wantDesc: "Scaffold a Cluster API infrastructure provider"},
		{sub: "--api", wantFlags: []string{"provider", "domain", "capkit-version", "capkit-replace"}, wantDesc: "<Provider>MachinePool"},
		{sub: "--webhook", wantDesc: `supports "init" and "create api"`},
		{sub: "--edit", wantDesc: `supports "init" and "create api"`},
	}
	for _, tt := range tests {
		t.Run(tt.sub, func(t *testing.T) {
			p := New(WithScaffolder(&fakeScaffolder{}))
			res := p.Handle(req(CommandFlags, tt.sub))
			require.False(t, res.Error)
			assert.Equal(t, tt.wantFlags, names(res.Flags))
			for _, f := range res.Flags {
				assert.Equal(t, "string", f.Type)
				assert.NotEmpty(t, f.Usage)
			}
			res = p.Handle(req(CommandMetadata, tt.sub))
			require.False(t, res.Error)
			assert.Contains(t, res.Metadata.Description, tt.wantDesc)
			assert.Empty(t, res.Flags)
		})
	}
}

func copyFiles(in scaffold.Files) scaffold.Files {
	out := scaffold.Files{}
	for k, v := range in {
		out[k] = v
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	return fsys
}
