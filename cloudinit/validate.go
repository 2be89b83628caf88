package cloudinit

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

var (
	// nameRE matches user and group names accepted by useradd/groupadd (and chown).
	nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,31}$`)
	// numericRE matches numeric IDs.
	numericRE = regexp.MustCompile(`^[0-9]{1,10}$`)
	// hostnameRE matches an RFC 1123 host name or FQDN.
	hostnameRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$`)
	// ntpServerRE matches a host name or an IPv4/IPv6 address.
	ntpServerRE = regexp.MustCompile(`^[A-Za-z0-9.:_\[\]-]{1,253}$`)
	dateRE      = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	fsTypeRE    = regexp.MustCompile(`^[a-z0-9]{1,16}$`)
	fsTypes     = map[string]bool{"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "vfat": true, "swap": true}
)

const maxPath = 4096

// validPath accepts an absolute, clean path of printable UTF-8 without "." or ".."
// components, so that a root prefix can never be escaped and no line break reaches a
// script or a configuration file.
func validPath(p, at string) error {
	switch {
	case p == "":
		return invalidf(at, "path is empty")
	case len(p) > maxPath:
		return invalidf(at, "path is longer than %d bytes", maxPath)
	case hasControl(p):
		return invalidf(at, "%s holds a control character or is not UTF-8", show(p))
	case !strings.HasPrefix(p, "/"):
		return invalidf(at, "%s is not an absolute path", show(p))
	case p == "/":
		return invalidf(at, "path is the root folder")
	case path.Clean(p) != p:
		return invalidf(at, "%s is not a clean path (use %s)", show(p), show(path.Clean(p)))
	}
	return nil
}

// validName accepts a user or group name.
func validName(n, at string) error {
	if !nameRE.MatchString(n) {
		return invalidf(at, "%s is not a valid user or group name", show(n))
	}
	return nil
}

// validOwner accepts "user" or "user:group", names or numeric IDs.
func validOwner(o, at string) error {
	user, group, hasGroup := strings.Cut(o, ":")
	ok := func(s string) bool { return nameRE.MatchString(s) || numericRE.MatchString(s) }
	if !ok(user) || (hasGroup && !ok(group)) {
		return invalidf(at, "%s is not user or user:group", show(o))
	}
	return nil
}

func validMode(m uint32, at string) error {
	if m > 0o7777 {
		return invalidf(at, "%#o is larger than 07777", m)
	}
	return nil
}

// parseMode reads permissions written as octal digits ("0644", "644", "0o644"). YAML 1.1
// reads an unquoted 0644 as the integer 420 and cloud-init uses that number, so an
// unquoted value is accepted only with its leading zero; an unquoted 644 would be the
// decimal 644 (01204) for cloud-init and is rejected as ambiguous.
func parseMode(s string, quoted bool, at string) (uint32, error) {
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "0o"), "0O")
	if !quoted && digits == s && !strings.HasPrefix(s, "0") {
		return 0, invalidf(at, "%s is ambiguous: YAML reads it as a decimal number; quote it as %s", show(s), show("0"+s))
	}
	if digits == "" || len(digits) > 5 {
		return 0, invalidf(at, "%s is not octal", show(s))
	}
	v, err := strconv.ParseUint(digits, 8, 32)
	if err != nil {
		return 0, invalidf(at, "%s is not octal", show(s))
	}
	return uint32(v), validMode(uint32(v), at)
}

func validCmd(c Cmd, at string) error {
	switch {
	case c.Shell != "" && len(c.Argv) > 0:
		return invalidf(at, "has both a shell command and an argv list")
	case c.Shell != "":
		if strings.IndexByte(c.Shell, 0) >= 0 {
			return invalidf(at, "command holds a NUL byte")
		}
		return nil
	case len(c.Argv) == 0:
		return invalidf(at, "command is empty")
	case c.Argv[0] == "":
		return invalidf(index(at, 0), "program name is empty")
	}
	for i, a := range c.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return invalidf(index(at, i), "argument holds a NUL byte")
		}
	}
	return nil
}

func validFile(f File, at string) error {
	if err := validPath(f.Path, join(at, "path")); err != nil {
		return err
	}
	if err := validOwner(f.Owner, join(at, "owner")); err != nil {
		return err
	}
	return validMode(f.Permissions, join(at, "permissions"))
}

// validLine accepts one line of a configuration file: not empty, printable UTF-8.
func validLine(s, at, what string) error {
	if strings.TrimSpace(s) == "" {
		return invalidf(at, "%s is empty", what)
	}
	if hasControl(s) {
		return invalidf(at, "%s holds a control character or is not UTF-8", what)
	}
	return nil
}

func validUser(u User, at string) error {
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	add(validName(u.Name, join(at, "name")))
	if u.Gecos != "" && (hasControl(u.Gecos) || strings.Contains(u.Gecos, ":")) {
		add(invalidf(join(at, "gecos"), "%s holds a colon, a control character or is not UTF-8", show(u.Gecos)))
	}
	for i, g := range u.Groups {
		add(validName(g, index(join(at, "groups"), i)))
	}
	if u.PrimaryGroup != "" {
		add(validName(u.PrimaryGroup, join(at, "primary_group")))
	}
	if u.Shell != "" {
		add(validPath(u.Shell, join(at, "shell")))
	}
	if u.HomeDir != "" {
		add(validPath(u.HomeDir, join(at, "homedir")))
	}
	for i, r := range u.Sudo {
		add(validLine(r, index(join(at, "sudo"), i), "sudo rule"))
	}
	if u.Passwd != "" && (hasControl(u.Passwd) || strings.ContainsAny(u.Passwd, ": ")) {
		add(invalidf(join(at, "passwd"), "password hash holds a colon, a space or a control character"))
	}
	for i, k := range u.SSHAuthorizedKeys {
		add(validLine(k, index(join(at, "ssh_authorized_keys"), i), "key"))
	}
	if u.UID != "" && !numericRE.MatchString(u.UID) {
		add(invalidf(join(at, "uid"), "%s is not a number", show(u.UID)))
	}
	if u.ExpireDate != "" && !dateRE.MatchString(u.ExpireDate) {
		add(invalidf(join(at, "expiredate"), "%s is not a YYYY-MM-DD date", show(u.ExpireDate)))
	}
	if u.Inactive != "" && !numericRE.MatchString(u.Inactive) {
		add(invalidf(join(at, "inactive"), "%s is not a number of days", show(u.Inactive)))
	}
	return joinErrors(errs)
}

func validHostname(h Hostname) error {
	check := func(s, at string) error {
		if s != "" && (len(s) > 253 || !hostnameRE.MatchString(s)) {
			return invalidf(at, "%s is not a valid host name", show(s))
		}
		return nil
	}
	if err := check(h.Hostname, "hostname"); err != nil {
		return err
	}
	if err := check(h.FQDN, "fqdn"); err != nil {
		return err
	}
	switch h.ManageEtcHosts {
	case "", "template", "localhost":
	default:
		return invalidf("manage_etc_hosts", "%s is not true, false, template or localhost", show(h.ManageEtcHosts))
	}
	if h.ManageEtcHosts != "" && h.Hostname == "" && h.FQDN == "" {
		return invalidf("manage_etc_hosts", "needs hostname or fqdn")
	}
	return nil
}

func validNTP(n NTP) error {
	switch n.Client {
	case "auto", "chrony", "ntp", "systemd-timesyncd":
	default:
		return invalidf("ntp.ntp_client", "%s is not auto, chrony, ntp or systemd-timesyncd", show(n.Client))
	}
	for i, s := range n.Servers {
		if !ntpServerRE.MatchString(s) {
			return invalidf(index("ntp.servers", i), "%s is not a host name or address", show(s))
		}
	}
	for i, s := range n.Pools {
		if !ntpServerRE.MatchString(s) {
			return invalidf(index("ntp.pools", i), "%s is not a host name or address", show(s))
		}
	}
	return nil
}

// validFstabField accepts one whitespace-free field of an fstab line.
func validFstabField(s, at string) error {
	if s == "" || hasControl(s) || strings.ContainsAny(s, " \t") || strings.HasPrefix(s, "#") {
		return invalidf(at, "%s is not a valid fstab field (empty, blank, # or control character)", show(s))
	}
	return nil
}

func validMount(m Mount, at string) error {
	fields := []struct{ v, name string }{
		{m.Spec, "0"}, {m.File, "1"}, {m.Type, "2"}, {m.Options, "3"}, {m.Freq, "4"}, {m.Passno, "5"},
	}
	for _, f := range fields {
		if err := validFstabField(f.v, at+"["+f.name+"]"); err != nil {
			return err
		}
	}
	if m.File != "none" && m.File != "swap" {
		return validPath(m.File, at+"[1]")
	}
	return nil
}

func validDisk(d Disk, at string) error {
	if err := validPath(d.Device, at); err != nil {
		return err
	}
	if d.TableType != "mbr" && d.TableType != "gpt" {
		return invalidf(join(at, "table_type"), "%s is not mbr or gpt", show(d.TableType))
	}
	total := 0
	for i, p := range d.Layout {
		pat := index(join(at, "layout"), i)
		if p.Percent < 1 || p.Percent > 100 {
			return invalidf(pat, "%d is not a percentage from 1 to 100", p.Percent)
		}
		if _, err := partedType(p.Type); err != nil {
			return invalidf(pat, "partition type %s is not 83, 8300, 82 or 8200", show(p.Type))
		}
		total += p.Percent
	}
	if d.TableType == "mbr" && len(d.Layout) > 4 {
		return invalidf(join(at, "layout"), "an mbr table holds at most 4 primary partitions, not %d", len(d.Layout))
	}
	if total > 100 {
		return invalidf(join(at, "layout"), "partitions add up to %d%%, more than the disk", total)
	}
	return nil
}

func validFilesystem(f Filesystem, at string) error {
	if err := validPath(f.Device, join(at, "device")); err != nil {
		return err
	}
	if !fsTypes[f.Filesystem] {
		return invalidf(join(at, "filesystem"), "%s is not ext2, ext3, ext4, xfs, btrfs, vfat or swap", show(f.Filesystem))
	}
	if f.Partition != "" && f.Partition != "none" {
		if n, err := strconv.Atoi(f.Partition); err != nil || n < 1 || n > 128 {
			return invalidf(join(at, "partition"), "%s is not none or a partition number", show(f.Partition))
		}
	}
	if f.Label != "" && hasControl(f.Label) {
		return invalidf(join(at, "label"), "%s holds a control character or is not UTF-8", show(f.Label))
	}
	if f.ReplaceFS != "" && !fsTypeRE.MatchString(f.ReplaceFS) {
		return invalidf(join(at, "replace_fs"), "%s is not a file system type", show(f.ReplaceFS))
	}
	for i, o := range f.ExtraOpts {
		if strings.IndexByte(o, 0) >= 0 {
			return invalidf(index(join(at, "extra_opts"), i), "holds a NUL byte")
		}
	}
	return nil
}

func validScript(s Script, at string) error {
	if !scriptNameRE.MatchString(s.Name) {
		return invalidf(join(at, "name"), "%s is not a file name of letters, digits, '.', '_' and '-'", show(s.Name))
	}
	if !strings.HasPrefix(string(s.Content), "#!") {
		return invalidf(at, "script does not start with #!")
	}
	return nil
}

// Validate checks every value of a Config the way Parse does, so that a Config built or
// changed by hand renders to a safe script. Errors name the field with the index of the
// slice, for example write_files[3].permissions, and wrap ErrInvalid.
func (c *Config) Validate() error {
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	for i, cmd := range c.BootCmd {
		add(validCmd(cmd, index("bootcmd", i)))
	}
	for i, d := range c.DiskSetup {
		add(validDisk(d, index("disk_setup", i)))
	}
	for i, f := range c.FSSetup {
		add(validFilesystem(f, index("fs_setup", i)))
	}
	for i, m := range c.Mounts {
		add(validMount(m, index("mounts", i)))
	}
	add(validHostname(c.Hostname))
	for i, u := range c.Users {
		add(validUser(u, index("users", i)))
	}
	for i, f := range c.WriteFiles {
		add(validFile(f, index("write_files", i)))
	}
	if c.NTP != nil {
		add(validNTP(*c.NTP))
	}
	for i, s := range c.Scripts {
		add(validScript(s, index("scripts", i)))
	}
	for i, cmd := range c.RunCmd {
		add(validCmd(cmd, index("runcmd", i)))
	}
	if strings.IndexByte(c.FinalMessage, 0) >= 0 {
		add(invalidf("final_message", "holds a NUL byte"))
	}
	return joinErrors(errs)
}
