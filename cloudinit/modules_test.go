package cloudinit

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseWriteFiles(t *testing.T) {
	pem := "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
	gzb64 := base64.StdEncoding.EncodeToString(gz(t, pem))
	data := "#cloud-config\nwrite_files:\n" +
		"- path: /etc/a\n" +
		"- path: /etc/b\n  content: |\n    line\n  owner: capi\n  permissions: 0755\n  append: yes\n  defer: on\n" +
		"- {path: /etc/c, encoding: B64, content: " + base64.StdEncoding.EncodeToString([]byte(pem)) + "}\n" +
		"- {path: /etc/d, encoding: gzip+base64, content: " + gzb64 + ", permissions: '0o600'}\n" +
		"- {path: /etc/e, encoding: gz, content: !!binary " + gzb64 + ", permissions: \"4755\"}\n" +
		"- {path: /etc/f, encoding: text/plain, content: plain, owner: '1000:1000', permissions: ~}\n"
	cfg := mustParse(t, []byte(data))
	assert.Equal(t, KindCloudConfig, cfg.Kind)
	assert.Equal(t, []File{
		{Path: "/etc/a", Content: []byte{}, Owner: "root:root", Permissions: 0o644},
		{Path: "/etc/b", Content: []byte("line\n"), Owner: "capi", Permissions: 0o755, Append: true, Defer: true},
		{Path: "/etc/c", Content: []byte(pem), Encoding: "B64", Owner: "root:root", Permissions: 0o644},
		{Path: "/etc/d", Content: []byte(pem), Encoding: "gzip+base64", Owner: "root:root", Permissions: 0o600},
		{Path: "/etc/e", Content: []byte(pem), Encoding: "gz", Owner: "root:root", Permissions: 0o4755},
		{Path: "/etc/f", Content: []byte("plain"), Encoding: "text/plain", Owner: "1000:1000", Permissions: 0o644},
	}, cfg.WriteFiles)
}

func TestParseCommands(t *testing.T) {
	cfg := mustParse(t, []byte("#cloud-config\nbootcmd: [echo boot, [cloud-init-per, once, x, 'a b']]\nruncmd:\n- 'kubeadm init && echo ok'\n- [ls, -l, 42, true]\n"))
	assert.Equal(t, []Cmd{{Shell: "echo boot"}, {Argv: []string{"cloud-init-per", "once", "x", "a b"}}}, cfg.BootCmd)
	assert.Equal(t, []Cmd{{Shell: "kubeadm init && echo ok"}, {Argv: []string{"ls", "-l", "42", "true"}}}, cfg.RunCmd)
}

func TestParseUsers(t *testing.T) {
	data := "#cloud-config\nusers:\n" +
		"- alice, bob\n" +
		"- name: capi\n  gecos: CAPI\n  groups: [docker, wheel]\n  primary-group: capi\n  shell: /bin/bash\n" +
		"  homedir: /var/lib/capi\n  sudo: ['ALL=(ALL) NOPASSWD:ALL', 'ALL=(root) /usr/bin/kubectl']\n  lock-passwd: false\n" +
		"  passwd: $6$salt$hash\n  ssh-authorized-keys: ssh-ed25519 AAAA one@example\n  uid: 1500\n  expiredate: '2030-01-31'\n  inactive: '10'\n" +
		"- {name: svc, system: true, no_create_home: true, sudo: false, hashed_passwd: '!', inactive: false}\n"
	cfg := mustParse(t, []byte(data))
	assert.Equal(t, []User{
		{Name: "alice", LockPasswd: true},
		{Name: "bob", LockPasswd: true},
		{
			Name: "capi", Gecos: "CAPI", Groups: []string{"docker", "wheel"}, PrimaryGroup: "capi", Shell: "/bin/bash",
			HomeDir: "/var/lib/capi", Sudo: []string{"ALL=(ALL) NOPASSWD:ALL", "ALL=(root) /usr/bin/kubectl"},
			Passwd: "$6$salt$hash", SSHAuthorizedKeys: []string{"ssh-ed25519 AAAA one@example"},
			UID: "1500", ExpireDate: "2030-01-31", Inactive: "10",
		},
		{Name: "svc", System: true, NoCreateHome: true, LockPasswd: true, Passwd: "!"},
	}, cfg.Users)

	cfg = mustParse(t, []byte("#cloud-config\nusers: 'ops, dev'\n"))
	assert.Equal(t, []User{{Name: "ops", LockPasswd: true}, {Name: "dev", LockPasswd: true}}, cfg.Users)
}

func TestParseSystemModules(t *testing.T) {
	data := "#cloud-config\nntp:\nhostname: node-1\nfqdn: node-1.example.com\nprefer_fqdn_over_hostname: true\n" +
		"preserve_hostname: false\nmanage_etc_hosts: true\nfinal_message: 'done after $UPTIME'\n"
	cfg := mustParse(t, []byte(data))
	assert.Equal(t, &NTP{Enabled: true, Client: "auto"}, cfg.NTP)
	assert.Equal(t, Hostname{Hostname: "node-1", FQDN: "node-1.example.com", PreferFQDN: true, ManageEtcHosts: "template"}, cfg.Hostname)
	assert.Equal(t, "done after $UPTIME", cfg.FinalMessage)

	cfg = mustParse(t, []byte("#cloud-config\nntp: {enabled: false, ntp_client: chrony, servers: [10.0.0.1], pools: ['[fd00::1]']}\nfqdn: a.b.c\nmanage_etc_hosts: localhost\n"))
	assert.Equal(t, &NTP{Enabled: false, Client: "chrony", Servers: []string{"10.0.0.1"}, Pools: []string{"[fd00::1]"}}, cfg.NTP)
	assert.Equal(t, "localhost", cfg.Hostname.ManageEtcHosts)
}

func TestParseDisksAndMounts(t *testing.T) {
	data := "#cloud-config\n" +
		"disk_setup:\n  sdb: {table_type: gpt, layout: [25, [25, 82], [50, '8300']], overwrite: true}\n  /dev/sdc: {layout: false}\n  /dev/sdd: {}\n" +
		"fs_setup:\n- {label: data, filesystem: xfs, device: /dev/nvme1n1, partition: 2, overwrite: true}\n" +
		"- {filesystem: swap, device: sdb, partition: none, replace_fs: ntfs, extra_opts: -v}\n" +
		"mount_default_fields: [~, ~, ext4, 'defaults,noatime', '0', '0']\n" +
		"mounts:\n- [sdb2, none, swap, sw, '0', '0']\n- [LABEL=data, /data]\n- [/dev/sdc, ~]\n- [sdd]\n- ['10.0.0.2:/export', /nfs, nfs4, 'rw,hard']\n- [tmpfs, /tmp/x, tmpfs]\n"
	cfg := mustParse(t, []byte(data))
	assert.Equal(t, []Disk{
		{Device: "/dev/sdb", TableType: "gpt", Overwrite: true, Layout: []Partition{{Percent: 25}, {Percent: 25, Type: "82"}, {Percent: 50, Type: "8300"}}},
		{Device: "/dev/sdc", TableType: "mbr"},
		{Device: "/dev/sdd", TableType: "mbr"},
	}, cfg.DiskSetup)
	assert.Equal(t, []Filesystem{
		{Label: "data", Filesystem: "xfs", Device: "/dev/nvme1n1", Partition: "2", Overwrite: true},
		{Filesystem: "swap", Device: "/dev/sdb", Partition: "none", ReplaceFS: "ntfs", ExtraOpts: []string{"-v"}},
	}, cfg.FSSetup)
	assert.Equal(t, []Mount{
		{Spec: "/dev/sdb2", File: "none", Type: "swap", Options: "sw", Freq: "0", Passno: "0"},
		{Spec: "LABEL=data", File: "/data", Type: "ext4", Options: "defaults,noatime", Freq: "0", Passno: "0"},
		{Spec: "10.0.0.2:/export", File: "/nfs", Type: "nfs4", Options: "rw,hard", Freq: "0", Passno: "0"},
		{Spec: "tmpfs", File: "/tmp/x", Type: "tmpfs", Options: "defaults,noatime", Freq: "0", Passno: "0"},
	}, cfg.Mounts, "[/dev/sdc, ~] and [sdd] remove a mount: nothing is written for them")

	commands, err := Commands(cfg)
	require.NoError(t, err)
	var argv [][]string
	for _, c := range commands {
		if c.Module == "disk_setup[0]" || c.Module == "fs_setup[0]" || c.Module == "fs_setup[1]" {
			argv = append(argv, c.Argv[4:])
		}
	}
	assert.Equal(t, [][]string{
		{"/dev/sdb", "true", "mklabel", "gpt", "mkpart", "primary", "0%", "25%", "mkpart", "primary", "linux-swap", "25%", "50%", "mkpart", "primary", "50%", "100%"},
		{"/dev/nvme1n1p2", "true", "", "mkfs.xfs", "-f", "-L", "data", "/dev/nvme1n1p2"},
		{"/dev/sdb", "false", "ntfs", "mkswap", "-f", "-v", "/dev/sdb"},
	}, argv)
}

func TestValidateHandBuiltConfig(t *testing.T) {
	cfg := &Config{
		WriteFiles: []File{{Path: "/ok", Owner: "root", Permissions: 0o644}, {Path: "rel", Owner: "root"}, {Path: "/x", Owner: "a b", Permissions: 0o10000}},
		RunCmd:     []Cmd{{}, {Shell: "a", Argv: []string{"b"}}, {Argv: []string{"a", "b\x00"}}},
		Users:      []User{{Name: "-rf"}},
		Scripts:    []Script{{Name: "../x", Content: []byte("#!/bin/sh\n")}, {Name: "ok", Content: []byte("echo")}},
		NTP:        &NTP{Client: ""},
		DiskSetup:  []Disk{{Device: "/dev/sdb", TableType: "mbr", Layout: []Partition{{Percent: 10}, {Percent: 10}, {Percent: 10}, {Percent: 10}, {Percent: 10}}}},
	}
	err := cfg.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	for _, want := range []string{
		`write_files[1].path: "rel" is not an absolute path`,
		`write_files[2].owner: "a b" is not user or user:group`,
		`runcmd[0]: command is empty`,
		`runcmd[1]: has both a shell command and an argv list`,
		`runcmd[2][1]: argument holds a NUL byte`,
		`users[0].name: "-rf" is not a valid user or group name`,
		`scripts[0].name: "../x" is not a file name`,
		`scripts[1]: script does not start with #!`,
		`ntp.ntp_client: "" is not auto`,
		`disk_setup[0].layout: an mbr table holds at most 4 primary partitions, not 5`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = Render(cfg)
	assert.ErrorIs(t, err, ErrInvalid, "Render validates the Config")
	_, err = Commands(cfg)
	assert.ErrorIs(t, err, ErrInvalid, "Commands validates the Config")
	_, err = Render(nil)
	assert.Error(t, err)
}
