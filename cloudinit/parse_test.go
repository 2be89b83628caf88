package cloudinit

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

// TestParseErrors checks that bad input is rejected with an error naming the module, the
// item index and the field, wrapping the right sentinel.
func TestParseErrors(t *testing.T) {
	files := "#cloud-config\nwrite_files:\n- {path: /a}\n- {path: /b}\n- {path: /c}\n"
	tests := []struct {
		name, data string
		want       string
		is         error
	}{
		{"permissions not octal", files + "- {path: /d, permissions: '0x644'}\n", `write_files[3].permissions: "0x644" is not octal`, ErrInvalid},
		{"permissions ambiguous decimal", files + "- {path: /d, permissions: 644}\n", `write_files[3].permissions: "644" is ambiguous: YAML reads it as a decimal number; quote it as "0644"`, ErrInvalid},
		{"permissions too large", "#cloud-config\nwrite_files:\n- {path: /d, permissions: '17777'}\n", `write_files[0].permissions: 017777 is larger than 07777`, ErrInvalid},
		{"path missing", "#cloud-config\nwrite_files:\n- {content: x}\n", `write_files[0].path: is missing`, ErrInvalid},
		{"path relative", "#cloud-config\nwrite_files:\n- {path: etc/x}\n", `write_files[0].path: "etc/x" is not an absolute path`, ErrInvalid},
		{"path escapes the root", "#cloud-config\nwrite_files:\n- {path: /etc/../../x}\n", `write_files[0].path: "/etc/../../x" is not a clean path (use "/x")`, ErrInvalid},
		{"path with a line break", "#cloud-config\nwrite_files:\n- {path: \"/etc/a\\nb\"}\n", `write_files[0].path: "/etc/a\nb" holds a control character or is not UTF-8`, ErrInvalid},
		{"owner with shell", "#cloud-config\nwrite_files:\n- {path: /a, owner: 'root;reboot'}\n", `write_files[0].owner: "root;reboot" is not user or user:group`, ErrInvalid},
		{"owner with empty group", "#cloud-config\nwrite_files:\n- {path: /a, owner: 'root:'}\n", `write_files[0].owner: "root:" is not user or user:group`, ErrInvalid},
		{"unknown encoding", "#cloud-config\nwrite_files:\n- {path: /a, encoding: rot13, content: x}\n", `write_files[0].encoding: "rot13" is not one of b64, base64, gz, gzip, gz+b64, gz+base64, gzip+b64, gzip+base64, text/plain`, ErrInvalid},
		{"bad base64", "#cloud-config\nwrite_files:\n- {path: /a, encoding: b64, content: 'SECRET!!'}\n", `write_files[0].content: is not valid base64`, ErrInvalid},
		{"bad gzip", "#cloud-config\nwrite_files:\n- {path: /a, encoding: gz+b64, content: U0VDUkVU}\n", `write_files[0].content: is not valid gzip data`, ErrInvalid},
		{"append not a boolean", "#cloud-config\nwrite_files:\n- {path: /a, append: maybe}\n", `write_files[0].append: "maybe" is not a boolean`, ErrInvalid},
		{"unknown module", "#cloud-config\npackages: [nginx]\n", `packages: module not supported`, ErrUnsupported},
		{"unknown field", "#cloud-config\nwrite_files:\n- {path: /a, source: {uri: 'http://x'}}\n", `write_files[0].source: field not supported`, ErrUnsupported},
		{"duplicate module", "#cloud-config\nruncmd: [a]\nruncmd: [b]\n", `runcmd: duplicate key`, ErrInvalid},
		{"module of the wrong type", "#cloud-config\nwrite_files: {path: /a}\n", `write_files: must be a list, not a mapping`, ErrInvalid},
		{"not a mapping", "#cloud-config\n- a\n", `cloud-config must be a YAML mapping of modules, not a list`, ErrInvalid},
		{"two documents", "#cloud-config\nruncmd: [a]\n---\nruncmd: [b]\n", `cloud-config holds more than one YAML document`, ErrInvalid},
		{"not YAML", "#cloud-config\nruncmd: [a\n", `cloud-config is not valid YAML`, ErrInvalid},
		{"runcmd null entry", "#cloud-config\nruncmd: [~]\n", `runcmd[0]: command is null`, ErrInvalid},
		{"runcmd empty argv", "#cloud-config\nruncmd: [[]]\n", `runcmd[0]: command is empty`, ErrInvalid},
		{"runcmd NUL", "#cloud-config\nbootcmd: [\"echo SECRET\\0\"]\n", `bootcmd[0]: command holds a NUL byte`, ErrInvalid},
		{"runcmd argv mapping", "#cloud-config\nruncmd: [[a, {b: c}]]\n", `runcmd[0][1]: must be a string, not a mapping`, ErrInvalid},
		{"default user", "#cloud-config\nusers: [default, {name: capi}]\n", `users[0]: the distribution's "default" user is not supported`, ErrUnsupported},
		{"user without name", "#cloud-config\nusers: [{gecos: x}]\n", `users[0].name: is missing`, ErrInvalid},
		{"user name with shell", "#cloud-config\nusers: [{name: 'a$(x)'}]\n", `users[0].name: "a$(x)" is not a valid user or group name`, ErrInvalid},
		{"user group invalid", "#cloud-config\nusers: [{name: a, groups: 'ok, b c'}]\n", `users[0].groups[1]: "b c" is not a valid user or group name`, ErrInvalid},
		{"user sudo true", "#cloud-config\nusers: [{name: a, sudo: true}]\n", `users[0].sudo: must be a sudoers rule, a list of rules or false, not true`, ErrInvalid},
		{"user sudo line break", "#cloud-config\nusers: [{name: a, sudo: \"ALL=(ALL) ALL\\nevil ALL=(ALL) ALL\"}]\n", `users[0].sudo[0]: sudo rule holds a control character or is not UTF-8`, ErrInvalid},
		{"user key line break", "#cloud-config\nusers: [{name: a, ssh_authorized_keys: [\"ssh-ed25519 A\\nssh-rsa B\"]}]\n", `users[0].ssh_authorized_keys[0]: key holds a control character or is not UTF-8`, ErrInvalid},
		{"user passwd colon", "#cloud-config\nusers: [{name: a, passwd: 'SECRET:x'}]\n", `users[0].passwd: password hash holds a colon, a space or a control character`, ErrInvalid},
		{"user inactive true", "#cloud-config\nusers: [{name: a, inactive: true}]\n", `users[0].inactive: true is not supported, give a number of days`, ErrUnsupported},
		{"user unknown field", "#cloud-config\nusers: [{name: a, ssh_import_id: [gh:x]}]\n", `users[0].ssh_import_id: field not supported`, ErrUnsupported},
		{"ntp server", "#cloud-config\nntp: {servers: ['a b']}\n", `ntp.servers[0]: "a b" is not a host name or address`, ErrInvalid},
		{"ntp client", "#cloud-config\nntp: {ntp_client: openntpd}\n", `ntp.ntp_client: "openntpd" is not auto, chrony, ntp or systemd-timesyncd`, ErrInvalid},
		{"ntp config", "#cloud-config\nntp: {config: {confpath: /x}}\n", `ntp.config: field not supported`, ErrUnsupported},
		{"mount field with a blank", "#cloud-config\nmounts: [[/dev/sdb, /mnt, ext4, 'defaults, ro']]\n", `mounts[0][3]: "defaults, ro" is not a valid fstab field (empty, blank, # or control character)`, ErrInvalid},
		{"mount point relative", "#cloud-config\nmounts: [[/dev/sdb, mnt]]\n", `mounts[0][1]: "mnt" is not an absolute path`, ErrInvalid},
		{"mount datasource device", "#cloud-config\nmounts: [[ephemeral0, /mnt]]\n", `mounts[0][0]: device "ephemeral0" is named by the cloud datasource`, ErrUnsupported},
		{"mount too many fields", "#cloud-config\nmounts: [[a, b, c, d, e, f, g]]\n", `mounts[0]: must hold 1 to 6 fields, not 7`, ErrInvalid},
		{"mount defaults length", "#cloud-config\nmount_default_fields: [a]\nmounts: [[sdb, /mnt]]\n", `mount_default_fields: must hold 6 fields, not 1`, ErrInvalid},
		{"disk table type", "#cloud-config\ndisk_setup: {/dev/sdb: {table_type: zfs, layout: true}}\n", `disk_setup./dev/sdb.table_type: "zfs" is not mbr or gpt`, ErrInvalid},
		{"disk layout too large", "#cloud-config\ndisk_setup: {/dev/sdb: {layout: [60, [50, 82]]}}\n", `disk_setup./dev/sdb.layout: partitions add up to 110%, more than the disk`, ErrInvalid},
		{"disk partition type", "#cloud-config\ndisk_setup: {/dev/sdb: {layout: [[50, 7]]}}\n", `disk_setup./dev/sdb.layout[0]: partition type "7" is not 83, 8300, 82 or 8200`, ErrInvalid},
		{"disk percentage", "#cloud-config\ndisk_setup: {/dev/sdb: {layout: [half]}}\n", `disk_setup./dev/sdb.layout[0]: "half" is not a percentage`, ErrInvalid},
		{"fs partition auto", "#cloud-config\nfs_setup: [{device: /dev/sdb, filesystem: ext4, partition: auto}]\n", `fs_setup[0].partition: partition "auto" is not supported, give none or a number`, ErrUnsupported},
		{"fs type", "#cloud-config\nfs_setup: [{device: /dev/sdb, filesystem: zfs}]\n", `fs_setup[0].filesystem: "zfs" is not ext2, ext3, ext4, xfs, btrfs, vfat or swap`, ErrInvalid},
		{"fs cmd", "#cloud-config\nfs_setup: [{device: /dev/sdb, filesystem: ext4, cmd: 'mkfs -t %(filesystem)s'}]\n", `fs_setup[0].cmd: field not supported`, ErrUnsupported},
		{"hostname", "#cloud-config\nhostname: 'bad_name!'\n", `hostname: "bad_name!" is not a valid host name`, ErrInvalid},
		{"manage_etc_hosts", "#cloud-config\nhostname: a\nmanage_etc_hosts: sometimes\n", `manage_etc_hosts: "sometimes" is not true, false, template or localhost`, ErrInvalid},
		{"manage_etc_hosts without a name", "#cloud-config\nmanage_etc_hosts: true\n", `manage_etc_hosts: needs hostname or fqdn`, ErrInvalid},
		{"empty", "", `user data is empty`, ErrInvalid},
		{"unknown format", "hello\n", `user data does not start with #cloud-config, #! or a MIME header`, ErrInvalid},
		{"include", "#include\nhttp://example.com/x\n", `user data format "#include"`, ErrUnsupported},
		{"other template", "## template: mustache\n#cloud-config\n", `template type "mustache"`, ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, strings.HasPrefix(err.Error(), "cannot parse user data: "), err.Error())
			assert.NotContains(t, err.Error(), "SECRET", "errors never show contents or commands")
			assert.NotContains(t, err.Error(), "\n", "errors are one line")
		})
	}
}

func TestParseFieldErrorPath(t *testing.T) {
	_, err := Parse([]byte("#cloud-config\nusers: [{name: a}, {name: b, shell: bin/sh}]\n"))
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "users[1].shell", fe.Path)
	assert.ErrorIs(t, fe, ErrInvalid)
}

func TestParseLenientSkipsAndReports(t *testing.T) {
	data := "#cloud-config\npackages: [nginx]\nusers: [default, {name: capi, ssh_import_id: x, inactive: true}]\n" +
		"write_files:\n- {path: /a, source: {uri: x}, content: hi}\nmounts: [[ephemeral0, /mnt], [sdc, /data]]\n" +
		"fs_setup: [{device: ephemeral0.1, filesystem: ext4}, {device: /dev/sdb, filesystem: ext4, partition: any}]\n" +
		"disk_setup: {ephemeral0: {layout: true}}\napt: {preserve_sources_list: true}\n"
	cfg, err := Parse([]byte(data), WithLenient())
	require.NoError(t, err)
	assert.Equal(t, []Skip{
		{"packages", "module not supported"},
		{"users[0]", `the distribution's "default" user is not supported`},
		{"users[1].ssh_import_id", "field not supported"},
		{"users[1].inactive", "true is not supported, give a number of days"},
		{"write_files[0].source", "field not supported"},
		{"fs_setup[0].device", `device "ephemeral0.1" is named by the cloud datasource`},
		{"fs_setup[1].partition", `partition "any" is not supported, give none or a number`},
		{"disk_setup.ephemeral0", `device "ephemeral0" is named by the cloud datasource`},
		{"apt", "module not supported"},
		{"mounts[0][0]", `device "ephemeral0" is named by the cloud datasource`},
	}, cfg.Skipped)
	assert.Equal(t, []User{{Name: "capi", LockPasswd: true}}, cfg.Users)
	assert.Equal(t, "hi", string(cfg.WriteFiles[0].Content))
	assert.Equal(t, []Mount{{Spec: "/dev/sdc", File: "/data", Type: "auto", Options: "defaults,nofail", Freq: "0", Passno: "2"}}, cfg.Mounts)
	assert.Empty(t, cfg.FSSetup)
	assert.Empty(t, cfg.DiskSetup)
	assert.Equal(t, "packages (module not supported)", cfg.Skipped[0].String())

	script, err := Render(cfg)
	require.NoError(t, err)
	assert.Contains(t, string(script), "# skipped: packages (module not supported)\n")

	// Invalid values are errors in lenient mode too.
	_, err = Parse([]byte("#cloud-config\nwrite_files:\n- {path: x}\n"), WithLenient())
	assert.ErrorIs(t, err, ErrInvalid)
}

func TestParseKinds(t *testing.T) {
	mime := "Content-Type: multipart/mixed; boundary=\"BOUNDARY\"\nMIME-Version: 1.0\n\n" +
		"--BOUNDARY\nContent-Type: text/cloud-config; charset=\"us-ascii\"\n\n#cloud-config\nruncmd: [echo hi]\n" +
		"--BOUNDARY\nContent-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"prepare.sh\"\nContent-Transfer-Encoding: base64\n\n" +
		base64.StdEncoding.EncodeToString([]byte("#!/bin/sh\necho prepare\n")) + "\n" +
		"--BOUNDARY\nContent-Type: text/plain\n\n#!/bin/bash\necho plain\n" +
		"--BOUNDARY--\n"
	tests := []struct {
		name    string
		data    []byte
		kind    Kind
		scripts []Script
		runcmd  []Cmd
	}{
		{"cloud-config", []byte("#cloud-config\nruncmd: [a]\n"), KindCloudConfig, nil, []Cmd{{Shell: "a"}}},
		{"gzip cloud-config", gz(t, "#cloud-config\nruncmd: [a]\n"), KindCloudConfig, nil, []Cmd{{Shell: "a"}}},
		{"shell script", []byte("#!/bin/bash\necho hi\n"), KindShellScript, []Script{{Name: "part-001", Content: []byte("#!/bin/bash\necho hi\n")}}, nil},
		{"mime", []byte(mime), KindMIMEMultipart, []Script{
			{Name: "prepare.sh", Content: []byte("#!/bin/sh\necho prepare\n")},
			{Name: "part-002", Content: []byte("#!/bin/bash\necho plain")}, // the line break before a boundary is the boundary's
		}, []Cmd{{Shell: "echo hi"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(tt.data)
			require.NoError(t, err)
			assert.Equal(t, tt.kind, cfg.Kind)
			assert.Equal(t, tt.scripts, cfg.Scripts)
			assert.Equal(t, tt.runcmd, cfg.RunCmd)
		})
	}
}

func TestParseMIMEUnsupportedParts(t *testing.T) {
	mime := "Content-Type: multipart/mixed; boundary=B\n\n" +
		"--B\nContent-Type: text/cloud-config\n\n#cloud-config\nwrite_files:\n- {path: /a, permissions: 'x'}\n" +
		"--B--\n"
	_, err := Parse([]byte(mime))
	assert.ErrorContains(t, err, `part[0].write_files[0].permissions: "x" is not octal`)

	mime = "Content-Type: multipart/mixed; boundary=B\n\n" +
		"--B\nContent-Type: text/cloud-boothook\n\n#cloud-boothook\necho\n" +
		"--B\nContent-Type: text/cloud-config\n\n#cloud-config\nruncmd: [a]\n" +
		"--B\nContent-Type: text/cloud-config\n\n#cloud-config\nruncmd: [b]\n--B--\n"
	_, err = Parse([]byte(mime))
	assert.ErrorIs(t, err, ErrUnsupported)
	assert.ErrorContains(t, err, `part[0]: content type "text/cloud-boothook" is not supported`)
	cfg, err := Parse([]byte(mime), WithLenient())
	require.NoError(t, err)
	assert.Equal(t, []Skip{
		{"part[0]", `content type "text/cloud-boothook" is not supported`},
		{"part[2]", "a second cloud-config part (merging parts is not supported)"},
	}, cfg.Skipped)
	assert.Equal(t, []Cmd{{Shell: "a"}}, cfg.RunCmd)
}

func TestParseByteOrderMarkAndScriptParts(t *testing.T) {
	cfg := mustParse(t, []byte("\xef\xbb\xbf#!/bin/sh\necho\n"))
	assert.Equal(t, "#!/bin/sh\necho\n", string(cfg.Scripts[0].Content), "a script must start with #! to run")
	_, err := Render(cfg)
	require.NoError(t, err)

	_, err = Parse([]byte("Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/x-shellscript\n\necho no interpreter\n--B--\n"))
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "part[0]: shell script does not start with #!")
}

func TestParseSizeLimits(t *testing.T) {
	_, err := Parse([]byte("#cloud-config\nruncmd: [a]\n"), WithMaxSize(10))
	assert.ErrorIs(t, err, ErrTooLarge)

	bomb := base64.StdEncoding.EncodeToString(gz(t, strings.Repeat("A", 1<<20)))
	_, err = Parse([]byte("#cloud-config\nwrite_files:\n- {path: /a, encoding: gz+b64, content: "+bomb+"}\n"), WithMaxSize(64<<10))
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, "write_files[0].content: decoded values exceed the limit of 262144 bytes (4 × WithMaxSize; values repeated by aliases count each time)")

	_, err = Parse(gz(t, "#cloud-config\nruncmd: ["+strings.Repeat("a,", 1<<16)+"a]\n"), WithMaxSize(64<<10))
	assert.ErrorIs(t, err, ErrTooLarge)

	// An argv of 1000 words referenced 1001 times is more than a million nodes.
	aliases := "#cloud-config\na: &a [" + strings.Repeat("x, ", 999) + "x]\nruncmd: [" + strings.Repeat("*a, ", 1000) + "*a]\n"
	_, err = Parse([]byte(aliases), WithLenient())
	assert.ErrorIs(t, err, ErrTooLarge)

	// A 32 KiB content repeated 1000 times by aliases is 32 MiB of script.
	big := "#cloud-config\nx: &f {path: /a, content: " + strings.Repeat("a", 32<<10) + "}\nwrite_files: [" + strings.Repeat("*f, ", 999) + "*f]\n"
	_, err = Parse([]byte(big), WithLenient())
	assert.ErrorIs(t, err, ErrTooLarge)
}
