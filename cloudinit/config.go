package cloudinit

// Kind is the format of the user data given to Parse.
type Kind string

const (
	// KindCloudConfig is a #cloud-config YAML document (optionally a jinja template).
	KindCloudConfig Kind = "cloud-config"
	// KindShellScript is a script starting with #! that is run as it is.
	KindShellScript Kind = "shell-script"
	// KindMIMEMultipart is a MIME multipart archive of cloud-config and shell-script parts.
	KindMIMEMultipart Kind = "mime-multipart"
)

// Config is parsed user data. Parse fills it and applies cloud-init's defaults; a Config
// built by hand is checked by Validate before it is rendered. Slices keep the order of the
// user data and the rendered script keeps it too.
type Config struct {
	// Kind is the format the user data was in.
	Kind Kind
	// Jinja is true when the user data started with "## template: jinja".
	Jinja bool

	// BootCmd holds the bootcmd entries, run first.
	BootCmd []Cmd
	// DiskSetup holds the disk_setup entries, in the order of the user data.
	DiskSetup []Disk
	// FSSetup holds the fs_setup entries.
	FSSetup []Filesystem
	// Mounts holds the mounts entries with mount_default_fields applied.
	Mounts []Mount
	// Hostname is the hostname module: hostname, fqdn and manage_etc_hosts.
	Hostname Hostname
	// Users holds the users entries.
	Users []User
	// WriteFiles holds the write_files entries, decoded; Defer marks the deferred ones.
	WriteFiles []File
	// NTP is the ntp module, nil when absent.
	NTP *NTP
	// Scripts holds shell scripts (a #! user data, or the shell-script parts of a MIME
	// multipart), run after ntp and before runcmd, like cloud-init's scripts-user.
	Scripts []Script
	// RunCmd holds the runcmd entries.
	RunCmd []Cmd
	// FinalMessage is printed at the end when not empty.
	FinalMessage string

	// Skipped lists what lenient parsing left out; it is empty in strict mode.
	Skipped []Skip
}

// Cmd is one bootcmd or runcmd entry: either a shell command line or an argv list.
type Cmd struct {
	// Shell is set when the entry was a string; it is run with sh -c.
	Shell string
	// Argv is set when the entry was a list; it is run without a shell.
	Argv []string
}

// File is one write_files entry with its content decoded (base64 and gzip undone).
type File struct {
	// Path is the absolute path of the file.
	Path string
	// Content is the decoded content, written byte for byte.
	Content []byte
	// Encoding is the encoding the content had in the user data, for information.
	Encoding string
	// Owner is "user" or "user:group"; Parse defaults it to "root:root".
	Owner string
	// Permissions is the mode, at most 07777; Parse defaults it to 0644.
	Permissions uint32
	// Append adds the content at the end of an existing file instead of replacing it.
	Append bool
	// Defer writes the file after runcmd, once users and packages exist.
	Defer bool
}

// User is one users entry.
type User struct {
	// Name is the login name.
	Name string
	// Gecos is the comment field, usually the full name.
	Gecos string
	// Groups are the supplementary groups; missing groups are created.
	Groups []string
	// PrimaryGroup is the login group; it is created when missing.
	PrimaryGroup string
	// Shell is the login shell, an absolute path.
	Shell string
	// HomeDir is the home folder; empty means /home/NAME (/root for root).
	HomeDir string
	// NoCreateHome stops useradd from creating the home folder.
	NoCreateHome bool
	// System creates a system account.
	System bool
	// Sudo holds sudoers rules, written to /etc/sudoers.d/90-cloud-init-users.
	Sudo []string
	// LockPasswd locks the password; Parse defaults it to true as cloud-init does.
	LockPasswd bool
	// Passwd is the password hash given to useradd. It is never shown in errors.
	Passwd string
	// SSHAuthorizedKeys are appended to the user's ~/.ssh/authorized_keys.
	SSHAuthorizedKeys []string
	// UID is the numeric user ID, or empty to let useradd choose.
	UID string
	// ExpireDate is the YYYY-MM-DD date on which the account is disabled, or empty.
	ExpireDate string
	// Inactive is the number of days after password expiry before the account is disabled,
	// or empty.
	Inactive string
}

// NTP is the ntp module.
type NTP struct {
	// Enabled configures the time client; Parse defaults it to true.
	Enabled bool
	// Client is "auto" (chrony, then ntp, then systemd-timesyncd, whichever is installed),
	// "chrony", "ntp" or "systemd-timesyncd".
	Client string
	// Servers are NTP servers.
	Servers []string
	// Pools are NTP pools; when both lists are empty, 0-3.pool.ntp.org are used.
	Pools []string
}

// Mount is one /etc/fstab entry from the mounts module.
type Mount struct {
	// Spec is the device (fs_spec): a path, LABEL=, UUID=, a network share or a file system
	// name such as tmpfs.
	Spec string
	// File is the mount point (fs_file), or "none" for swap.
	File string
	// Type is the file system type (fs_vfstype).
	Type string
	// Options are the mount options (fs_mntops).
	Options string
	// Freq is the dump frequency (fs_freq).
	Freq string
	// Passno is the fsck pass (fs_passno).
	Passno string
}

// Disk is one disk_setup entry.
type Disk struct {
	// Device is the absolute path of the disk.
	Device string
	// TableType is "mbr" or "gpt".
	TableType string
	// Layout holds the partitions to create; empty means the disk is left alone.
	Layout []Partition
	// Overwrite partitions the disk even when it already has a partition table.
	Overwrite bool
}

// Partition is one partition of a disk layout.
type Partition struct {
	// Percent is the share of the disk, 1 to 100.
	Percent int
	// Type is the partition type: "" or 83/8300 (Linux), 82/8200 (swap).
	Type string
}

// Filesystem is one fs_setup entry.
type Filesystem struct {
	// Label is the file system label, or empty.
	Label string
	// Filesystem is the type: ext2, ext3, ext4, xfs, btrfs, vfat or swap.
	Filesystem string
	// Device is the absolute path of the disk or partition.
	Device string
	// Partition is empty or "none" (Device itself) or a partition number.
	Partition string
	// Overwrite makes the file system even when the device already has one.
	Overwrite bool
	// ReplaceFS makes the file system when the device has one of this type.
	ReplaceFS string
	// ExtraOpts are extra arguments for mkfs.
	ExtraOpts []string
}

// Hostname is the hostname part of the user data.
type Hostname struct {
	// Hostname is the short host name.
	Hostname string
	// FQDN is the fully qualified domain name.
	FQDN string
	// PreferFQDN sets the FQDN as host name (prefer_fqdn_over_hostname).
	PreferFQDN bool
	// Preserve keeps the host name unchanged (preserve_hostname).
	Preserve bool
	// ManageEtcHosts is "" (leave /etc/hosts alone), "template" (write it whole) or
	// "localhost" (replace its 127.0.1.1 entry).
	ManageEtcHosts string
}

// Script is a shell script from the user data.
type Script struct {
	// Name is the part's file name, or "part-NNN".
	Name string
	// Content is the script, starting with #!.
	Content []byte
}
