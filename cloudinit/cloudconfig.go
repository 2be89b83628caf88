package cloudinit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"

	yaml "go.yaml.in/yaml/v3"
)

// moduleFunc decodes one top-level key of a cloud-config into cfg.
type moduleFunc func(d *decoder, n *yaml.Node, cfg *Config) error

// moduleFuncs are the modules this package renders. mounts and mount_default_fields are
// decoded together after the others.
var moduleFuncs = map[string]moduleFunc{
	"write_files": (*decoder).writeFiles,
	"runcmd":      func(d *decoder, n *yaml.Node, cfg *Config) (err error) { cfg.RunCmd, err = d.cmds(n, "runcmd"); return },
	"bootcmd": func(d *decoder, n *yaml.Node, cfg *Config) (err error) {
		cfg.BootCmd, err = d.cmds(n, "bootcmd")
		return
	},
	"users":                     (*decoder).users,
	"ntp":                       (*decoder).ntp,
	"disk_setup":                (*decoder).diskSetup,
	"fs_setup":                  (*decoder).fsSetup,
	"hostname":                  hostnameString(func(c *Config) *string { return &c.Hostname.Hostname }, "hostname"),
	"fqdn":                      hostnameString(func(c *Config) *string { return &c.Hostname.FQDN }, "fqdn"),
	"prefer_fqdn_over_hostname": hostnameBool(func(c *Config) *bool { return &c.Hostname.PreferFQDN }, "prefer_fqdn_over_hostname"),
	"preserve_hostname":         hostnameBool(func(c *Config) *bool { return &c.Hostname.Preserve }, "preserve_hostname"),
	"manage_etc_hosts":          (*decoder).manageEtcHosts,
	"final_message":             (*decoder).finalMessage,
}

// parseCloudConfig decodes a #cloud-config YAML document into cfg, with the values of the jinja
// variables vars (nil for none) in place of their tokens. A cloud-config of a MIME part is decoded
// with the part's path prefix.
func (d *decoder) parseCloudConfig(body []byte, cfg *Config, vars *jinjaVars) (err error) {
	d.vars = vars
	defer func() { d.vars = nil }()
	defer func() {
		// The YAML parser is not expected to panic; if it ever does on hostile input, the
		// caller gets an error rather than a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("cloud-config cannot be parsed as YAML: %w", ErrInvalid)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(body))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return fmt.Errorf("cloud-config is not valid YAML: %s: %w", err.Error(), ErrInvalid)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return fmt.Errorf("cloud-config holds more than one YAML document: %w", ErrInvalid)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root, err := d.resolve(doc.Content[0])
	if err != nil {
		return err
	}
	if !isNull(root) && root.Kind != yaml.MappingNode {
		return fmt.Errorf("cloud-config must be a YAML mapping of modules, not %s: %w", kindName(root), ErrInvalid)
	}
	fields, err := d.mapping(root, "")
	if err != nil {
		return err
	}
	var mounts, defaults *yaml.Node
	for _, f := range fields {
		switch f.key {
		case "mounts":
			mounts = f.value
			continue
		case "mount_default_fields":
			defaults = f.value
			continue
		}
		fn, ok := moduleFuncs[f.key]
		if !ok {
			if err := d.unsupported(f.key, "module not supported"); err != nil {
				return err
			}
			continue
		}
		if err := fn(d, f.value, cfg); err != nil {
			return err
		}
	}
	if mounts != nil || defaults != nil {
		if err := d.mounts(mounts, defaults, cfg); err != nil {
			return err
		}
	}
	return d.check(validHostname(cfg.Hostname))
}

// shells are the programs whose -c option takes a command line.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "ksh": true, "zsh": true}

// shellOptionRE matches the options of a shell that end with -c: -c, -ec, -xec.
var shellOptionRE = regexp.MustCompile(`^-[A-Za-z]*c$`)

// argv decodes the argv of a command. An argument that follows a shell (sh, bash, ...) and its -c
// option is a command line, in which jinja values must be plain words, as in a string command.
func (d *decoder) argv(n *yaml.Node, at string) ([]string, error) {
	items, err := d.sequence(n, at)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	shell := false
	for i, item := range items {
		commandLine := shell && i > 0 && shellOptionRE.MatchString(out[i-1])
		s, ok, err := d.scalar(item, index(at, i), commandLine)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, d.invalidf(index(at, i), "must be a string, not null")
		}
		shell = shell || shells[path.Base(s)]
		out = append(out, s)
	}
	return out, nil
}

// cmds decodes a runcmd or bootcmd list: a string entry is a shell command line, a list
// entry is an argv.
func (d *decoder) cmds(n *yaml.Node, at string) ([]Cmd, error) {
	items, err := d.sequence(n, at)
	if err != nil {
		return nil, err
	}
	out := make([]Cmd, 0, len(items))
	for i, item := range items {
		iat := index(at, i)
		r, err := d.resolve(item)
		if err != nil {
			return nil, err
		}
		var c Cmd
		if r.Kind == yaml.SequenceNode {
			if c.Argv, err = d.argv(r, iat); err != nil {
				return nil, err
			}
		} else {
			s, ok, err := d.scalar(r, iat, true)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, d.invalidf(iat, "command is null")
			}
			c.Shell = s
		}
		if err := d.check(validCmd(c, iat)); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func hostnameString(get func(*Config) *string, at string) moduleFunc {
	return func(d *decoder, n *yaml.Node, cfg *Config) error {
		s, _, err := d.str(n, at)
		*get(cfg) = s
		return err
	}
}

func hostnameBool(get func(*Config) *bool, at string) moduleFunc {
	return func(d *decoder, n *yaml.Node, cfg *Config) (err error) {
		*get(cfg), err = d.boolean(n, at, false)
		return err
	}
}

// manageEtcHosts reads true/"template", "localhost" or false.
func (d *decoder) manageEtcHosts(n *yaml.Node, cfg *Config) error {
	s, ok, err := d.str(n, "manage_etc_hosts")
	if err != nil || !ok {
		return err
	}
	switch s {
	case "localhost", "template":
		cfg.Hostname.ManageEtcHosts = s
		return nil
	}
	b, err := d.boolean(n, "manage_etc_hosts", false)
	if err != nil {
		return d.invalidf("manage_etc_hosts", "%s is not true, false, template or localhost", show(s))
	}
	if b {
		cfg.Hostname.ManageEtcHosts = "template"
	}
	return nil
}

func (d *decoder) finalMessage(n *yaml.Node, cfg *Config) error {
	s, _, err := d.str(n, "final_message")
	if err == nil && bytes.IndexByte([]byte(s), 0) >= 0 {
		return d.invalidf("final_message", "holds a NUL byte")
	}
	cfg.FinalMessage = s
	return err
}
