package cloudinit

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// users decodes the users module: a list of user mappings or names, or a comma-separated
// string of names.
func (d *decoder) users(n *yaml.Node, cfg *Config) error {
	r, err := d.resolve(n)
	if err != nil {
		return err
	}
	if r.Kind == yaml.ScalarNode && !isNull(r) {
		s, _, err := d.str(r, "users")
		if err != nil {
			return err
		}
		return d.userNames(s, "users", cfg)
	}
	items, err := d.sequence(r, "users")
	if err != nil {
		return err
	}
	for i, item := range items {
		at := index("users", i)
		ri, err := d.resolve(item)
		if err != nil {
			return err
		}
		if ri.Kind == yaml.ScalarNode {
			s, _, err := d.str(ri, at)
			if err != nil {
				return err
			}
			if err := d.userNames(s, at, cfg); err != nil {
				return err
			}
			continue
		}
		u, err := d.user(ri, at)
		if err != nil {
			return err
		}
		cfg.Users = append(cfg.Users, u)
	}
	return nil
}

// userNames adds users given by name only ("foo, bar"); "default" is the distribution's
// default user, which only cloud-init knows.
func (d *decoder) userNames(s, at string, cfg *Config) error {
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "default" {
			if err := d.unsupported(at, `the distribution's "default" user is not supported`); err != nil {
				return err
			}
			continue
		}
		u := User{Name: name, LockPasswd: true}
		if err := d.check(validUser(u, at)); err != nil {
			return err
		}
		cfg.Users = append(cfg.Users, u)
	}
	return nil
}

// user decodes one user mapping. Hyphenated keys (ssh-authorized-keys) are read like their
// underscore form, as cloud-init does.
func (d *decoder) user(n *yaml.Node, at string) (u User, err error) {
	u.LockPasswd = true
	fields, err := d.mapping(n, at)
	if err != nil {
		return u, err
	}
	hasName := false
	for _, fl := range fields {
		key := strings.ReplaceAll(fl.key, "-", "_")
		p := join(at, fl.key)
		switch key {
		case "name":
			u.Name, hasName, err = d.str(fl.value, p)
		case "gecos":
			u.Gecos, _, err = d.str(fl.value, p)
		case "groups":
			u.Groups, err = d.groups(fl.value, p)
		case "primary_group":
			u.PrimaryGroup, _, err = d.str(fl.value, p)
		case "shell":
			u.Shell, _, err = d.str(fl.value, p)
		case "homedir":
			u.HomeDir, _, err = d.str(fl.value, p)
		case "no_create_home":
			u.NoCreateHome, err = d.boolean(fl.value, p, false)
		case "system":
			u.System, err = d.boolean(fl.value, p, false)
		case "sudo":
			u.Sudo, err = d.sudo(fl.value, p)
		case "lock_passwd":
			u.LockPasswd, err = d.boolean(fl.value, p, true)
		case "passwd", "hashed_passwd":
			u.Passwd, _, err = d.str(fl.value, p)
		case "ssh_authorized_keys":
			u.SSHAuthorizedKeys, err = d.strings(fl.value, p, true)
		case "uid":
			u.UID, _, err = d.str(fl.value, p)
		case "expiredate":
			u.ExpireDate, _, err = d.str(fl.value, p)
		case "inactive":
			u.Inactive, err = d.inactive(fl.value, p)
		default:
			err = d.unsupported(p, "field not supported")
		}
		if err != nil {
			return u, err
		}
	}
	if !hasName {
		return u, d.invalidf(join(at, "name"), "is missing")
	}
	return u, d.check(validUser(u, at))
}

// groups reads a list of groups or a comma-separated string.
func (d *decoder) groups(n *yaml.Node, at string) ([]string, error) {
	r, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	if r.Kind != yaml.ScalarNode || isNull(r) {
		return d.strings(r, at, false)
	}
	s, _, err := d.str(r, at)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, g := range strings.Split(s, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out, nil
}

// sudo reads a rule, a list of rules, or false/null for none.
func (d *decoder) sudo(n *yaml.Node, at string) ([]string, error) {
	r, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	if r.Kind == yaml.ScalarNode && r.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 {
		v, err := d.value(r, at, false)
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(v) {
		case "false", "no", "off":
			return nil, nil
		case "true", "yes", "on":
			return nil, d.invalidf(at, "must be a sudoers rule, a list of rules or false, not true")
		}
	}
	return d.strings(r, at, true)
}

// inactive reads the number of days of useradd --inactive. cloud-init's older documentation
// (and CABPK) write "inactive: true", which useradd cannot take; it is reported as
// unsupported (lenient mode creates the user without it), and "false" is no value.
func (d *decoder) inactive(n *yaml.Node, at string) (string, error) {
	s, ok, err := d.str(n, at)
	if err != nil || !ok {
		return "", err
	}
	switch strings.ToLower(s) {
	case "false", "no", "off":
		return "", nil
	case "true", "yes", "on":
		return "", d.unsupported(at, "true is not supported, give a number of days")
	}
	return s, nil
}
