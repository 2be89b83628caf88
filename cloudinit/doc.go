// Package cloudinit turns Cluster API bootstrap data into a bash script or a list of commands. The bootstrap data is
// the cloud-config that the kubeadm bootstrap provider writes, and the output is for machines that cannot run
// cloud-init: containers, pods, bare metal over SSH, images without cloud-init.
//
// # Parse
//
// Parse reads the bootstrap data and says what it is (Config.Kind): a #cloud-config YAML
// document, a #! shell script or a MIME multipart archive of those; gzip-compressed data is
// decompressed first. A first line "## template: jinja" makes the data a template: every
// {{ variable }} is replaced by a value declared with WithVariables, an undeclared one is an
// error (ErrUndeclaredVariable), and no other template logic runs. A value cannot change the
// structure of the document: the template is parsed with the variables in place, and each value
// is put into the YAML scalar where its variable stands, as data of that scalar, whatever
// characters it holds (quotes, ": ", "- ", "#", "&", "*", "!", "{{"). Where the scalar is a shell
// command line (a runcmd or bootcmd string) or the template is a shell script, the value must be
// one word of letters, digits and ._:@%+,=/- (an error names the variable otherwise). A value is
// one line of at most 4096 bytes; a variable in a mapping key is not supported, nor is a template
// around a MIME archive (templates go in its parts, as in cloud-init). Jinja errors name the line
// and the variable, never text from inside {{ }}. A value written into a file's content is written
// as it is: a template that puts a variable into a script or configuration file quotes it there.
// From ExampleWithVariables:
//
//	cfg, err := cloudinit.Parse(data, cloudinit.WithVariables(map[string]string{
//		"local_hostname": machineName, // serves {{ ds.meta_data.local_hostname }} and {{ v1.local_hostname }}
//		"instance_id":    instanceID,
//	}))
//
// These modules are decoded, with cloud-init's defaults: write_files (every encoding:
// b64/base64, gz/gzip, gz+b64, gzip+base64, ..., owner, permissions, append, defer),
// bootcmd and runcmd (a string runs with sh -c, a list is an argv), users, ntp, mounts with
// mount_default_fields, disk_setup, fs_setup, hostname, fqdn, prefer_fqdn_over_hostname,
// preserve_hostname, manage_etc_hosts and final_message. Anything else (a module, a field,
// a value such as the distribution's "default" user) is never dropped silently: by default
// Parse fails with an error wrapping ErrUnsupported that names it; WithLenient lists it in
// Config.Skipped instead, for the caller to log. Invalid values are always errors wrapping
// ErrInvalid, and errors name the module, the item index and the field:
//
//	cannot parse user data: write_files[3].permissions: "0x644" is not octal
//
// Errors never include file contents or commands, which hold certificates and tokens.
//
// # Bounds
//
// Parse bounds every input before it grows, and fails with an error wrapping ErrTooLarge that
// names the bound, its value and the input that exceeded it. The defaults fit real bootstrap data
// many times over: the largest real one, a kubeadm control-plane cloud-config with every
// certificate, is 20 to 60 KB and visits fewer than 300 YAML nodes.
//
//   - User data: WithMaxSize bytes, DefaultMaxSize (1 MiB, what a Kubernetes Secret holds) by default.
//   - Each document decoded from it: WithMaxSize bytes for the decompressed user data, a MIME part
//     after its transfer encoding and gzip are undone, a rendered jinja shell script.
//   - Decoded values: 4 × WithMaxSize bytes (4 MiB) for the YAML values read, each time an alias
//     repeats one, and the decompressed write_files contents, together.
//   - YAML nodes visited: 100,000, aliases counted each time they are followed.
//   - MIME parts: 100. YAML documents: one per cloud-config.
//   - Jinja variable values: 4096 bytes each, one line.
//
// A rendered script is then bounded too: its steps by the nodes visited, its data by the decoded
// values. capkit render reads a regular file (a folder, named pipe or device is refused before it
// is read) or standard input ("-"), and at most --max-size bytes, WithMaxSize's default unless given.
//
// # Render
//
// Render returns one bash script: set -euo pipefail and umask 022, the modules in
// cloud-init's order (bootcmd, disk_setup, fs_setup, mounts, hostname, users, write_files,
// ntp, shell scripts, runcmd, deferred write_files, final_message), then the Cluster API
// sentinel /run/cluster-api/bootstrap-success.complete, written only if every step
// succeeded. The script is safe by construction: file contents are written from base64 in
// heredocs with a quoted delimiter that base64 cannot contain; every path, owner, mode and
// argument is a quoted shell word (quoting by mvdan.cc/sh, the parser behind shfmt); the
// logic lives in constant helper functions that receive data only as positional
// parameters; paths must be absolute and clean, owners user[:group] names, modes octal.
// The same input renders to the same bytes.
//
// Options: WithRoot writes every file under a folder (a sandbox, a mounted image), resolving
// each path as a chroot into that folder would: symbolic links are followed inside it (an absolute
// target starts at the folder, ".." stops there, 40 links at most), so that a link in an image
// (var/run -> /run) never leads out of it;
// WithDryRun records the commands that change the system (bootcmd, runcmd, users, disks,
// mounts, host name, services) instead of running them; WithSentinel moves or removes the
// sentinel; WithChown controls owners, which are not applied under a root prefix by default
// because user names resolve against the running system. Files are written through a
// temporary file in the same folder and renamed, with owner and mode set before the rename; a
// target that is a symbolic link is written through (as cloud-init does), and a target that is a
// folder or another file that is not regular stops the script with a message naming the path.
//
// Differences from cloud-init: each runcmd entry runs on its own (cd does not carry over)
// and the first failure stops the script; an unknown write_files encoding is an error
// instead of plain text; an unquoted permissions value without a leading zero (644) is
// ambiguous in YAML 1.1 and rejected; partitions are made with parted, file systems with
// mkfs.TYPE or mkswap; the NTP client is the one installed (chrony, ntp, else
// systemd-timesyncd) and is not installed when missing; ssh keys are appended to
// ~/.ssh/authorized_keys; final_message is printed as it is, without $UPTIME expansion.
//
// # Commands and user data size
//
// Commands returns the same plan as argv lists with the file content on standard input,
// for providers that exec into a container. EncodeUserData compresses and base64-encodes
// bootstrap data and fails with ErrTooLarge above a limit such as EC2UserDataLimit or
// NovaUserDataLimit.
package cloudinit
