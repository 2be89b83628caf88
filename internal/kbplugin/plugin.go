package kbplugin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/capkit/capkit/internal/scaffold"
)

// Scaffolder writes the files of a scaffold; the default is package scaffold.
type Scaffolder interface {
	// Init returns every file of a new provider repository.
	Init(o scaffold.Options) (scaffold.Files, error)
	// CreateMachinePool returns the new and edited files that add <Provider>MachinePool; existing reads a file of
	// the repository and returns fs.ErrNotExist for a missing one.
	CreateMachinePool(o scaffold.Options, existing func(path string) ([]byte, error)) (scaffold.Files, error)
}

type packageScaffolder struct{}

func (packageScaffolder) Init(o scaffold.Options) (scaffold.Files, error) { return scaffold.Init(o) }

func (packageScaffolder) CreateMachinePool(o scaffold.Options, existing func(string) ([]byte, error)) (scaffold.Files, error) {
	return scaffold.CreateMachinePool(o, existing)
}

// Plugin answers Kubebuilder's requests.
type Plugin struct {
	scaffolder Scaffolder
	limit      int64
	workDir    fs.FS
}

// Option configures a Plugin.
type Option func(*Plugin)

// WithScaffolder replaces package scaffold (tests use a fake).
func WithScaffolder(s Scaffolder) Option { return func(p *Plugin) { p.scaffolder = s } }

// WithMaxRequestBytes sets the largest request Run reads (default MaxRequestBytes).
func WithMaxRequestBytes(n int64) Option { return func(p *Plugin) { p.limit = n } }

// WithWorkDir sets where "create api" reads the project when the request's Universe is empty, as Kubebuilder
// versions before v4 sent it (default: none, and then an empty Universe means an empty project).
func WithWorkDir(fsys fs.FS) Option { return func(p *Plugin) { p.workDir = fsys } }

// New returns a Plugin that scaffolds with package scaffold.
func New(opts ...Option) *Plugin {
	p := &Plugin{scaffolder: packageScaffolder{}, limit: MaxRequestBytes}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Run reads one request from stdin and writes its response to stdout. A request that fails, or cannot be read, gets a
// response with Error set; Run returns an error only when it cannot write the response.
// A panic of the scaffold is reported in the response too, since Kubebuilder shows nothing of a crashed plugin's stdout.
func (p *Plugin) Run(stdin io.Reader, stdout io.Writer) error {
	req, err := ReadRequest(stdin, p.limit)
	if err != nil {
		return WriteResponse(stdout, errorResponse(req.Command, err))
	}
	return WriteResponse(stdout, p.handleSafely(req))
}

func (p *Plugin) handleSafely(req Request) (res Response) {
	defer func() {
		if r := recover(); r != nil {
			res = errorResponse(req.Command, fmt.Errorf("cannot run command %q: %s panicked: %v", req.Command, Key, r))
		}
	}()
	return p.Handle(req)
}

// Handle answers one request.
func (p *Plugin) Handle(req Request) Response {
	if req.APIVersion != APIVersion {
		return errorResponse(req.Command, fmt.Errorf("cannot handle apiVersion %q: %s supports %q", req.APIVersion, Key, APIVersion))
	}
	var (
		files scaffold.Files
		err   error
	)
	switch req.Command {
	case CommandFlags:
		return p.flags(req)
	case CommandMetadata:
		return p.metadata(req)
	case CommandInit:
		files, err = p.init(req)
	case CommandCreateAPI:
		files, err = p.createAPI(req)
	default:
		err = fmt.Errorf("cannot run command %q: %s supports %q and %q (with --kind <Provider>MachinePool)",
			req.Command, Key, CommandInit, CommandCreateAPI)
	}
	if err != nil {
		return errorResponse(req.Command, err)
	}
	read, _ := p.project(req)
	universe, err := toUniverse(files, read)
	if err != nil {
		return errorResponse(req.Command, err)
	}
	return Response{APIVersion: APIVersion, Command: req.Command, Universe: universe}
}

// subcommand returns the subcommand a "flags" or "metadata" request asks about: "init", "api", "webhook" or "edit".
func subcommand(req Request) string {
	for _, a := range req.Args {
		if s, ok := strings.CutPrefix(a, "--"); ok {
			return s
		}
	}
	return ""
}

func (p *Plugin) flags(req Request) Response {
	res := Response{APIVersion: APIVersion, Command: req.Command, Universe: map[string]string{}}
	switch subcommand(req) {
	case "init":
		res.Flags = initFlags
	case "api":
		res.Flags = apiFlags
	}
	// Other subcommands declare no flag: running them gets the error that names what is supported.
	return res
}

func (p *Plugin) metadata(req Request) Response {
	res := Response{APIVersion: APIVersion, Command: req.Command, Universe: map[string]string{}}
	switch subcommand(req) {
	case "init":
		res.Metadata = Metadata{
			Description: "Scaffold a Cluster API infrastructure provider built on capkit (the files of \"capkit init\"): " +
				"the <Provider>Cluster, <Provider>Machine and template kinds, their controllers and tests.",
			Examples: "  kubebuilder init --plugins " + Key + " --repo github.com/acme/cluster-api-provider-acme --provider acme\n" +
				"  kubebuilder init --plugins " + Key + " --repo github.com/acme/cluster-api-provider-acme --provider acme --domain acme.io",
		}
	case "api":
		res.Metadata = Metadata{
			Description: "Add the InfraMachinePool kind <Provider>MachinePool to a project that \"kubebuilder init --plugins " +
				Key + "\" wrote; no other kind is supported.",
			Examples: "  kubebuilder create api --plugins " + Key + " --group infrastructure --version v1beta2 --kind AcmeMachinePool",
		}
	default:
		res.Metadata = Metadata{
			Description: Key + " supports \"init\" and \"create api\" (--kind <Provider>MachinePool) only.",
		}
	}
	return res
}

func (p *Plugin) init(req Request) (scaffold.Files, error) {
	o, err := initOptions(req)
	if err != nil {
		return nil, err
	}
	files, err := p.scaffolder.Init(o)
	if err != nil {
		return nil, fmt.Errorf("cannot scaffold the provider: %w", err)
	}
	// Kubebuilder writes a new project's PROJECT file itself and fails when one exists.
	delete(files, projectFile)
	var clash []string
	for name := range files {
		if _, ok := req.Universe[name]; ok {
			clash = append(clash, name)
		}
	}
	if len(clash) > 0 {
		slices.Sort(clash)
		return nil, fmt.Errorf("cannot scaffold into a directory that holds %q: %s writes the whole repository, run it "+
			"alone in an empty directory", clash, Key)
	}
	return files, nil
}

func (p *Plugin) createAPI(req Request) (scaffold.Files, error) {
	read, list := p.project(req)
	o, kind, err := apiOptions(req, read, list)
	if err != nil {
		return nil, err
	}
	files, err := p.scaffolder.CreateMachinePool(o, read)
	if err != nil {
		return nil, fmt.Errorf("cannot add kind %q: %w", kind, err)
	}
	// Kubebuilder overwrites PROJECT after the plugin ran.
	delete(files, projectFile)
	return files, nil
}

const projectFile = "PROJECT"

// project returns the functions that read a project file and list the files under api/: from the Universe, or from
// the working directory when the Universe is empty and WithWorkDir set one.
func (p *Plugin) project(req Request) (read func(name string) ([]byte, error), listAPI func() ([]string, error)) {
	if len(req.Universe) == 0 && len(req.tooLarge) == 0 && p.workDir != nil {
		listAPI = func() ([]string, error) {
			names, err := walkFiles(p.workDir, "api")
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return names, err
		}
		return func(name string) ([]byte, error) {
			if !fs.ValidPath(name) {
				return nil, fmt.Errorf("cannot read file %q: not a relative slash-separated path: %w", name, fs.ErrInvalid)
			}
			b, err := fs.ReadFile(p.workDir, name)
			if err != nil {
				return nil, fmt.Errorf("cannot read file %q: %w", name, err)
			}
			return b, nil
		}, listAPI
	}
	listAPI = func() ([]string, error) {
		var names []string
		for name := range req.Universe {
			if strings.HasPrefix(name, "api/") {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		return names, nil
	}
	return func(name string) ([]byte, error) {
		if n, ok := req.tooLarge[name]; ok {
			return nil, fmt.Errorf("cannot read file %q: %d bytes, over %d: %w", name, n, MaxFileBytes, ErrFileTooLarge)
		}
		content, ok := req.Universe[name]
		if !ok {
			return nil, fmt.Errorf("cannot read file %q: %w", name, fs.ErrNotExist)
		}
		return []byte(content), nil
	}, listAPI
}

// toUniverse turns a scaffold's files into a response Universe: paths must stay inside the project, and a file whose
// content is already on disk is left out.
func toUniverse(files scaffold.Files, read func(string) ([]byte, error)) (map[string]string, error) {
	universe := make(map[string]string, len(files))
	for name, content := range files {
		if !fs.ValidPath(name) || name == "." || path.Clean(name) != name {
			return nil, fmt.Errorf("cannot write file %q: not a clean relative path inside the project: %w", name, fs.ErrInvalid)
		}
		if old, err := read(name); err == nil && string(old) == string(content) {
			continue
		}
		universe[name] = string(content)
	}
	return universe, nil
}

// errMissingFlag names a flag a command needs.
var errMissingFlag = errors.New("missing flag")
