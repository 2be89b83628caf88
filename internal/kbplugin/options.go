package kbplugin

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/capkit/capkit/internal/scaffold"
)

// The flags the plugin declares. --group, --version and --kind of "create api" are Kubebuilder's own.
var (
	flagRepo          = Flag{Name: "repo", Type: "string", Usage: "Go module path of the new repository, e.g. github.com/acme/cluster-api-provider-acme (required)"}
	flagProvider      = Flag{Name: "provider", Type: "string", Usage: "provider's lower-case name, e.g. acme: the kinds become AcmeCluster, AcmeMachine, ... (required by init; create api takes it from --kind)"}
	flagDomain        = Flag{Name: "domain", Type: "string", Usage: "domain of the API group infrastructure.<domain> (init default: cluster.x-k8s.io; create api reads it from the project)"}
	flagCapkitVersion = Flag{Name: "capkit-version", Type: "string", Usage: "capkit module version that go.mod requires (default: the version the plugin was installed from, else capkit's last release)"}
	flagCapkitReplace = Flag{Name: "capkit-replace", Type: "string", Usage: "local path of a capkit checkout, written as a replace directive in go.mod"}

	initFlags = []Flag{flagRepo, flagProvider, flagDomain, flagCapkitVersion, flagCapkitReplace}
	apiFlags  = []Flag{flagProvider, flagDomain, flagCapkitVersion, flagCapkitReplace}
)

// What "create api" supports.
const (
	apiGroup    = "infrastructure"
	apiVersion  = "v1beta2"
	kindSuffix  = "MachinePool"
	groupMarker = "+groupName=" + apiGroup + "."
)

// args are the values of a request's flags.
type args struct {
	values map[string]*string
	set    map[string]bool
}

func (a args) get(name string) string { return *a.values[name] }

// parseArgs parses a request's Args against the declared flags, Kubebuilder's resource flags and its
// --project-version, which reaches external plugins too.
func parseArgs(req Request, declared []Flag) (args, error) {
	fset := flag.NewFlagSet(req.Command, flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	a := args{values: map[string]*string{}, set: map[string]bool{}}
	for _, f := range declared {
		a.values[f.Name] = fset.String(f.Name, f.Default, f.Usage)
	}
	for _, name := range []string{"group", "version", "kind", "project-version"} {
		a.values[name] = fset.String(name, "", "")
	}
	if err := fset.Parse(req.Args); err != nil {
		return a, fmt.Errorf("cannot parse the arguments %q of %q: %w", req.Args, req.Command, err)
	}
	if fset.NArg() > 0 {
		return a, fmt.Errorf("cannot parse the arguments of %q: unexpected %q", req.Command, fset.Args())
	}
	fset.Visit(func(f *flag.Flag) { a.set[f.Name] = true })
	return a, nil
}

// initOptions maps the flags of "init" to scaffold.Options.
func initOptions(req Request) (scaffold.Options, error) {
	a, err := parseArgs(req, initFlags)
	if err != nil {
		return scaffold.Options{}, err
	}
	for _, name := range []string{flagRepo.Name, flagProvider.Name} {
		if a.get(name) == "" {
			return scaffold.Options{}, fmt.Errorf("cannot scaffold: flag --%s is required: %w", name, errMissingFlag)
		}
	}
	return scaffold.Options{
		Module:        a.get(flagRepo.Name),
		Provider:      a.get(flagProvider.Name),
		Domain:        a.get(flagDomain.Name),
		CapkitVersion: a.get(flagCapkitVersion.Name),
		CapkitReplace: a.get(flagCapkitReplace.Name),
	}, nil
}

// apiOptions maps the flags of "create api" and the project to scaffold.Options: the provider from --kind, the
// module from PROJECT's repo or go.mod, the domain from --domain, PROJECT's domain or the API package's
// +groupName marker.
func apiOptions(req Request, read func(string) ([]byte, error), list func() ([]string, error)) (scaffold.Options, string, error) {
	a, err := parseArgs(req, apiFlags)
	if err != nil {
		return scaffold.Options{}, "", err
	}
	group, version, kind := a.get("group"), a.get("version"), a.get("kind")
	if group != apiGroup {
		return scaffold.Options{}, kind, fmt.Errorf("cannot create an API in group %q: %s supports --group %s", group, Key, apiGroup)
	}
	if version != apiVersion {
		return scaffold.Options{}, kind, fmt.Errorf("cannot create an API of version %q: %s supports --version %s", version, Key, apiVersion)
	}
	prefix, ok := strings.CutSuffix(kind, kindSuffix)
	if !ok || prefix == "" {
		return scaffold.Options{}, kind, fmt.Errorf("cannot create kind %q: %s supports --kind <Provider>%s only", kind, Key, kindSuffix)
	}
	provider := a.get(flagProvider.Name)
	switch {
	case provider == "":
		provider = strings.ToLower(prefix)
	case !strings.EqualFold(provider, prefix):
		return scaffold.Options{}, kind, fmt.Errorf("cannot create kind %q for provider %q: want --kind %s%s", kind, provider,
			prefix, kindSuffix)
	}
	o := scaffold.Options{
		Provider:      provider,
		CapkitVersion: a.get(flagCapkitVersion.Name),
		CapkitReplace: a.get(flagCapkitReplace.Name),
	}
	if o.Module, err = projectModule(req, read); err != nil {
		return o, kind, err
	}
	o.Domain = a.get(flagDomain.Name)
	if o.Domain == "" {
		o.Domain = configString(req, "domain")
	}
	if o.Domain == "" {
		if o.Domain, err = markerDomain(read, list); err != nil {
			return o, kind, err
		}
	}
	return o, kind, nil
}

// configString returns a string field of the request's PROJECT config, or "".
func configString(req Request, field string) string {
	s, _ := req.Config[field].(string)
	return s
}

// projectModule returns PROJECT's repo, or the module path go.mod declares.
func projectModule(req Request, read func(string) ([]byte, error)) (string, error) {
	if repo := configString(req, "repo"); repo != "" {
		return repo, nil
	}
	gomod, err := read("go.mod")
	if err != nil {
		return "", fmt.Errorf("cannot find the project's module: %w (run create api in the directory that init scaffolded)", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		mod := strings.TrimSpace(rest)
		if unq, err := strconv.Unquote(mod); err == nil {
			mod = unq
		}
		if mod != "" {
			return mod, nil
		}
	}
	return "", fmt.Errorf("cannot find the project's module: file %q has no module directive", "go.mod")
}

// markerDomain finds the domain in the +groupName=infrastructure.<domain> marker of the Go files under api/.
func markerDomain(read func(string) ([]byte, error), list func() ([]string, error)) (string, error) {
	names, err := list()
	if err != nil {
		return "", fmt.Errorf("cannot list the project's files: %w", err)
	}
	var domains []string
	for _, name := range names {
		if !strings.HasPrefix(name, "api/") || !strings.HasSuffix(name, ".go") {
			continue
		}
		content, err := read(name)
		if err != nil {
			return "", err
		}
		for line := range strings.Lines(string(content)) {
			_, after, ok := strings.Cut(line, groupMarker)
			if !ok {
				continue
			}
			if d := strings.TrimSpace(after); d != "" && !slices.Contains(domains, d) {
				domains = append(domains, d)
			}
		}
	}
	switch len(domains) {
	case 1:
		return domains[0], nil
	case 0:
		return "", fmt.Errorf("cannot find the API group's domain: no %q marker under %q; pass --domain", groupMarker+"<domain>", "api/")
	default:
		slices.Sort(domains)
		return "", fmt.Errorf("cannot choose the API group's domain among %q; pass --domain", domains)
	}
}

// walkFiles lists the regular files of fsys under root.
func walkFiles(fsys fs.FS, root string) ([]string, error) {
	var names []string
	err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			names = append(names, name)
		}
		return nil
	})
	return names, err
}
