package cloudinit

import (
	"fmt"
	"strconv"
	"strings"
)

// step is one action of the plan shared by Render and Commands.
type step struct {
	module string   // what the step comes from, for example "write_files[2]"
	fn     string   // the shell function to call, or "" for a plain command
	args   []string // the function's arguments, or the command's argv
	stdin  []byte   // content for standard input
	system bool     // changes the system beyond files under the root (recorded in dry run)
}

// planner builds the steps of a Config in cloud-init's module order.
type planner struct {
	o     *renderOptions
	steps []step
}

func (p *planner) add(s step) { p.steps = append(p.steps, s) }

// rooted appends the root prefix to the arguments of a helper that takes it last: the helper
// resolves its path under the root as a chroot would (capkit_resolve). Without a root prefix the
// arguments stay as they are.
func (p *planner) rooted(args ...string) []string {
	if p.o.root == "" {
		return args
	}
	return append(args, p.o.root)
}

func (p *planner) run(module string, argv ...string) {
	p.add(step{module: module, args: argv, system: true})
}

func (p *planner) write(module, path string, mode uint32, owner string, appendTo bool, content []byte) {
	how := "replace"
	if appendTo {
		how = "append"
	}
	p.add(step{module: module, fn: "capkit_write", args: p.rooted(path, fmt.Sprintf("%04o", mode), owner, how), stdin: content})
}

func cmdArgv(c Cmd) []string {
	if c.Argv != nil {
		return c.Argv
	}
	return []string{"sh", "-c", c.Shell}
}

// plan returns the steps of cfg: bootcmd, disk_setup, fs_setup, mounts, hostname, users,
// write_files, ntp, scripts, runcmd, deferred write_files, final_message, sentinel.
func plan(cfg *Config, o *renderOptions) []step {
	p := &planner{o: o}
	for i, c := range cfg.BootCmd {
		p.run(index("bootcmd", i), cmdArgv(c)...)
	}
	p.disks(cfg)
	p.mounts(cfg.Mounts)
	p.hostname(cfg.Hostname)
	p.users(cfg.Users)
	for i, f := range cfg.WriteFiles {
		if !f.Defer {
			p.write(index("write_files", i), f.Path, f.Permissions, f.Owner, f.Append, f.Content)
		}
	}
	p.ntp(cfg.NTP)
	for i, s := range cfg.Scripts {
		path := "/var/lib/capkit/scripts/" + s.Name
		p.write(index("scripts", i), path, 0o700, "root:root", false, s.Content)
		if p.o.root == "" {
			p.run(index("scripts", i), path)
		} else {
			p.add(step{module: index("scripts", i), fn: "capkit_exec", args: []string{path, p.o.root}, system: true})
		}
	}
	for i, c := range cfg.RunCmd {
		p.run(index("runcmd", i), cmdArgv(c)...)
	}
	for i, f := range cfg.WriteFiles {
		if f.Defer {
			p.write(index("write_files", i)+" (deferred)", f.Path, f.Permissions, f.Owner, f.Append, f.Content)
		}
	}
	if cfg.FinalMessage != "" {
		p.add(step{module: "final_message", args: []string{"printf", `%s\n`, cfg.FinalMessage}})
	}
	if o.sentinel != "" {
		p.write("sentinel", o.sentinel, 0o644, "root:root", false, []byte("success\n"))
	}
	return p.steps
}

func (p *planner) disks(cfg *Config) {
	for i, d := range cfg.DiskSetup {
		if len(d.Layout) == 0 {
			continue
		}
		label := "msdos"
		if d.TableType == "gpt" {
			label = "gpt"
		}
		args := []string{d.Device, strconv.FormatBool(d.Overwrite), "mklabel", label}
		start := 0
		for _, part := range d.Layout {
			args = append(args, "mkpart", "primary")
			if t, _ := partedType(part.Type); t != "" {
				args = append(args, t)
			}
			end := start + part.Percent
			args = append(args, fmt.Sprintf("%d%%", start), fmt.Sprintf("%d%%", end))
			start = end
		}
		p.add(step{module: index("disk_setup", i), fn: "capkit_partition", args: args, system: true})
	}
	for i, f := range cfg.FSSetup {
		dev := f.Device
		if f.Partition != "" && f.Partition != "none" {
			if last := dev[len(dev)-1]; last >= '0' && last <= '9' {
				dev += "p"
			}
			dev += f.Partition
		}
		args := []string{dev, strconv.FormatBool(f.Overwrite), f.ReplaceFS}
		args = append(args, mkfsArgv(f, dev)...)
		p.add(step{module: index("fs_setup", i), fn: "capkit_mkfs", args: args, system: true})
	}
}

// mkfsArgv returns the mkfs command of a file system; the force flag is added when the
// file system may replace another one (overwrite or replace_fs).
func mkfsArgv(f Filesystem, dev string) []string {
	force := f.Overwrite || f.ReplaceFS != ""
	var argv []string
	switch f.Filesystem {
	case "swap":
		argv = []string{"mkswap"}
		if force {
			argv = append(argv, "-f")
		}
	case "vfat":
		argv = []string{"mkfs.vfat"}
	case "xfs", "btrfs":
		argv = []string{"mkfs." + f.Filesystem}
		if force {
			argv = append(argv, "-f")
		}
	default:
		argv = []string{"mkfs." + f.Filesystem}
		if force {
			argv = append(argv, "-F")
		}
	}
	if f.Label != "" {
		flag := "-L"
		if f.Filesystem == "vfat" {
			flag = "-n"
		}
		argv = append(argv, flag, f.Label)
	}
	argv = append(argv, f.ExtraOpts...)
	return append(argv, dev)
}

func (p *planner) mounts(mounts []Mount) {
	if len(mounts) == 0 {
		return
	}
	var b strings.Builder
	swap := false
	for _, m := range mounts {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s,comment=cloudconfig\t%s\t%s\n", m.Spec, m.File, m.Type, m.Options, m.Freq, m.Passno)
		swap = swap || m.Type == "swap"
	}
	p.add(step{module: "mounts", fn: "capkit_fstab", args: p.rooted("/etc/fstab"), stdin: []byte(b.String())})
	for _, m := range mounts {
		if strings.HasPrefix(m.File, "/") {
			p.add(step{module: "mounts", fn: "capkit_mountpoint", args: p.rooted(m.File)})
		}
	}
	if swap {
		p.run("mounts", "swapon", "-a")
	}
	p.add(step{module: "mounts", fn: "capkit_systemd_reload", system: true})
	p.run("mounts", "mount", "-a")
}

// hostnames returns the host name to set and the (fqdn, short name) pair for /etc/hosts.
func hostnames(h Hostname) (name, fqdn, short string) {
	short = h.Hostname
	if short == "" && h.FQDN != "" {
		short, _, _ = strings.Cut(h.FQDN, ".")
	}
	name = short
	if h.PreferFQDN && h.FQDN != "" {
		name = h.FQDN
	}
	return name, h.FQDN, short
}

func (p *planner) hostname(h Hostname) {
	name, fqdn, short := hostnames(h)
	if name != "" && !h.Preserve {
		p.write("hostname", "/etc/hostname", 0o644, "root:root", false, []byte(name+"\n"))
		p.add(step{module: "hostname", fn: "capkit_hostname", args: []string{name}, system: true})
	}
	entry := "127.0.1.1 " + short
	if fqdn != "" && fqdn != short {
		entry = "127.0.1.1 " + fqdn + " " + short
	}
	switch h.ManageEtcHosts {
	case "template":
		hosts := "# Written by capkit from the cloud-config manage_etc_hosts module.\n" +
			entry + "\n127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\nff02::1 ip6-allnodes\nff02::2 ip6-allrouters\n"
		p.write("manage_etc_hosts", "/etc/hosts", 0o644, "root:root", false, []byte(hosts))
	case "localhost":
		p.add(step{module: "manage_etc_hosts", fn: "capkit_hosts_line", args: p.rooted("/etc/hosts", entry)})
	}
}

func (p *planner) users(users []User) {
	groups := map[string]bool{}
	var sudoers strings.Builder
	for i, u := range users {
		at := index("users", i)
		for _, g := range append([]string{u.PrimaryGroup}, u.Groups...) {
			if g != "" && !groups[g] {
				groups[g] = true
				p.add(step{module: at, fn: "capkit_groupadd", args: []string{g}, system: true})
			}
		}
		p.add(step{module: at, fn: "capkit_useradd", args: useraddArgs(u), system: true})
		if u.LockPasswd {
			p.run(at, "passwd", "-l", u.Name)
		}
		if len(u.SSHAuthorizedKeys) > 0 {
			home := u.HomeDir
			if home == "" {
				home = "/home/" + u.Name
				if u.Name == "root" {
					home = "/root"
				}
			}
			p.add(step{module: at, fn: "capkit_mkdir", args: p.rooted(home+"/.ssh", "0700", u.Name)})
			keys := strings.Join(u.SSHAuthorizedKeys, "\n") + "\n"
			p.write(at, home+"/.ssh/authorized_keys", 0o600, u.Name, true, []byte(keys))
		}
		if len(u.Sudo) > 0 {
			fmt.Fprintf(&sudoers, "\n# User rules for %s\n", u.Name)
			for _, r := range u.Sudo {
				fmt.Fprintf(&sudoers, "%s %s\n", u.Name, r)
			}
		}
	}
	if sudoers.Len() > 0 {
		content := "# Written by capkit from the cloud-config users module.\n" + sudoers.String()
		p.write("users (sudo rules)", "/etc/sudoers.d/90-cloud-init-users", 0o440, "root:root", false, []byte(content))
	}
}

// useraddArgs returns the user name, then the useradd options, in a fixed order.
func useraddArgs(u User) []string {
	args := []string{u.Name}
	opt := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	opt("--comment", u.Gecos)
	opt("--gid", u.PrimaryGroup)
	opt("--groups", strings.Join(u.Groups, ","))
	opt("--shell", u.Shell)
	opt("--home-dir", u.HomeDir)
	opt("--uid", u.UID)
	opt("--expiredate", u.ExpireDate)
	opt("--inactive", u.Inactive)
	opt("--password", u.Passwd)
	if u.System {
		args = append(args, "--system")
	}
	if u.NoCreateHome || u.System {
		args = append(args, "--no-create-home")
	} else {
		args = append(args, "--create-home")
	}
	return args
}

func (p *planner) ntp(n *NTP) {
	if n == nil || !n.Enabled {
		return
	}
	args := []string{p.o.root, n.Client}
	for _, s := range n.Servers {
		args = append(args, "server", s)
	}
	pools := n.Pools
	if len(n.Servers) == 0 && len(pools) == 0 {
		pools = []string{"0.pool.ntp.org", "1.pool.ntp.org", "2.pool.ntp.org", "3.pool.ntp.org"}
	}
	for _, s := range pools {
		args = append(args, "pool", s)
	}
	p.add(step{module: "ntp", fn: "capkit_ntp", args: args})
	p.add(step{module: "ntp", fn: "capkit_ntp_restart", args: []string{p.o.root, n.Client}, system: true})
}
