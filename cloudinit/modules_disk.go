package cloudinit

import (
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

var (
	// shortDeviceRE matches device names given without /dev/ ("sdb", "nvme1n1").
	shortDeviceRE = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	// datasourceDeviceRE matches names that only cloud-init's datasource can resolve.
	datasourceDeviceRE = regexp.MustCompile(`^(ephemeral[0-9]*|swap)(\.[0-9]+)?$`)
	// pseudoFS are mounts entries whose device is a file system name.
	pseudoFS = map[string]bool{"tmpfs": true, "none": true, "proc": true, "sysfs": true, "devpts": true, "overlay": true, "ramfs": true}
)

// device resolves a device name as cloud-init does ("sdb" is /dev/sdb). Datasource names
// (ephemeral0, swap) are unsupported: ok is false and lenient mode skips the entry.
func (d *decoder) device(name, at string) (dev string, ok bool, err error) {
	switch {
	case strings.HasPrefix(name, "/"):
		return name, true, nil
	case datasourceDeviceRE.MatchString(name):
		return "", false, d.unsupported(at, "device "+show(name)+" is named by the cloud datasource")
	case shortDeviceRE.MatchString(name):
		return "/dev/" + name, true, nil
	}
	return "", false, d.invalidf(at, "%s is not a device path", show(name))
}

// diskSetup decodes disk_setup, a mapping of device to partitioning.
func (d *decoder) diskSetup(n *yaml.Node, cfg *Config) error {
	fields, err := d.mapping(n, "disk_setup")
	if err != nil {
		return err
	}
	for _, f := range fields {
		at := join("disk_setup", f.key)
		dev, ok, err := d.device(f.key, at)
		if err != nil {
			return err
		}
		disk := Disk{Device: dev, TableType: "mbr"}
		items, err := d.mapping(f.value, at)
		if err != nil {
			return err
		}
		for _, it := range items {
			p := join(at, it.key)
			switch it.key {
			case "table_type":
				disk.TableType, _, err = d.str(it.value, p)
			case "layout":
				disk.Layout, err = d.layout(it.value, p)
			case "overwrite":
				disk.Overwrite, err = d.boolean(it.value, p, false)
			default:
				err = d.unsupported(p, "field not supported")
			}
			if err != nil {
				return err
			}
		}
		if !ok {
			continue
		}
		if err := d.check(validDisk(disk, at)); err != nil {
			return err
		}
		cfg.DiskSetup = append(cfg.DiskSetup, disk)
	}
	return nil
}

// layout reads true (one partition), false (none) or a list of percentages and
// [percentage, type] pairs.
func (d *decoder) layout(n *yaml.Node, at string) ([]Partition, error) {
	r, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	if r.Kind == yaml.ScalarNode {
		b, err := d.boolean(r, at, false)
		if err != nil || !b {
			return nil, err
		}
		return []Partition{{Percent: 100}}, nil
	}
	items, err := d.sequence(r, at)
	if err != nil {
		return nil, err
	}
	out := make([]Partition, 0, len(items))
	for i, item := range items {
		iat := index(at, i)
		ri, err := d.resolve(item)
		if err != nil {
			return nil, err
		}
		pair := []*yaml.Node{ri}
		if ri.Kind == yaml.SequenceNode {
			if len(ri.Content) != 2 {
				return nil, d.invalidf(iat, "must be a percentage or [percentage, type]")
			}
			pair = ri.Content
		}
		s, _, err := d.str(pair[0], iat)
		if err != nil {
			return nil, err
		}
		pct, err := strconv.Atoi(s)
		if err != nil {
			return nil, d.invalidf(iat, "%s is not a percentage", show(s))
		}
		p := Partition{Percent: pct}
		if len(pair) == 2 {
			if p.Type, _, err = d.str(pair[1], iat); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// fsSetup decodes fs_setup, a list of file systems to make.
func (d *decoder) fsSetup(n *yaml.Node, cfg *Config) error {
	items, err := d.sequence(n, "fs_setup")
	if err != nil {
		return err
	}
	for i, item := range items {
		at := index("fs_setup", i)
		fields, err := d.mapping(item, at)
		if err != nil {
			return err
		}
		var fs Filesystem
		keep := true
		for _, f := range fields {
			p := join(at, f.key)
			switch f.key {
			case "label":
				fs.Label, _, err = d.str(f.value, p)
			case "filesystem":
				fs.Filesystem, _, err = d.str(f.value, p)
			case "device":
				var name string
				if name, _, err = d.str(f.value, p); err == nil {
					var ok bool
					fs.Device, ok, err = d.device(name, p)
					keep = keep && ok
				}
			case "partition":
				fs.Partition, _, err = d.str(f.value, p)
				if l := strings.ToLower(fs.Partition); err == nil && (l == "auto" || l == "any" || strings.Contains(l, "|")) {
					err = d.unsupported(p, "partition "+show(fs.Partition)+" is not supported, give none or a number")
					keep = false
				}
			case "overwrite":
				fs.Overwrite, err = d.boolean(f.value, p, false)
			case "replace_fs":
				fs.ReplaceFS, _, err = d.str(f.value, p)
			case "extra_opts":
				fs.ExtraOpts, err = d.strings(f.value, p, true)
			default:
				err = d.unsupported(p, "field not supported")
			}
			if err != nil {
				return err
			}
		}
		if !keep {
			continue
		}
		if err := d.check(validFilesystem(fs, at)); err != nil {
			return err
		}
		cfg.FSSetup = append(cfg.FSSetup, fs)
	}
	return nil
}

// defaultMountFields are cloud-init's mount_default_fields without the cloud-init
// service ordering, which does not apply to a rendered script.
var defaultMountFields = [6]string{"", "", "auto", "defaults,nofail", "0", "2"}

// mounts decodes mounts with mount_default_fields applied. An entry whose mount point is
// null removes the mount, as in cloud-init; since every run replaces the entries written
// before, it simply writes nothing.
func (d *decoder) mounts(n, defaults *yaml.Node, cfg *Config) error {
	def := defaultMountFields
	if defaults != nil {
		items, err := d.sequence(defaults, "mount_default_fields")
		if err != nil {
			return err
		}
		if len(items) != 0 && len(items) != 6 {
			return d.invalidf("mount_default_fields", "must hold 6 fields, not %d", len(items))
		}
		for i, item := range items {
			s, _, err := d.str(item, index("mount_default_fields", i))
			if err != nil {
				return err
			}
			def[i] = s
		}
	}
	entries, err := d.sequence(n, "mounts")
	if err != nil {
		return err
	}
	for i, e := range entries {
		at := index("mounts", i)
		items, err := d.sequence(e, at)
		if err != nil {
			return err
		}
		if len(items) == 0 || len(items) > 6 {
			return d.invalidf(at, "must hold 1 to 6 fields, not %d", len(items))
		}
		var v [6]string
		var set [6]bool
		for j, item := range items {
			if v[j], set[j], err = d.str(item, index(at, j)); err != nil {
				return err
			}
		}
		if !set[0] {
			return d.invalidf(index(at, 0), "device is missing")
		}
		if !set[1] && def[1] == "" {
			continue
		}
		for j := range v {
			if !set[j] {
				v[j] = def[j]
			}
		}
		spec := v[0]
		if !pseudoFS[spec] && !strings.ContainsAny(spec, "=:") {
			dev, ok, err := d.device(spec, index(at, 0))
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			spec = dev
		}
		m := Mount{Spec: spec, File: v[1], Type: v[2], Options: v[3], Freq: v[4], Passno: v[5]}
		if err := d.check(validMount(m, at)); err != nil {
			return err
		}
		cfg.Mounts = append(cfg.Mounts, m)
	}
	return nil
}

// partedType maps a cloud-init partition type to the file system type argument of parted
// mkpart; "" means none.
func partedType(t string) (string, error) {
	switch t {
	case "", "83", "8300":
		return "", nil
	case "82", "8200":
		return "linux-swap", nil
	}
	return "", ErrInvalid
}
