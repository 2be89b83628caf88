package cloudinit

// shellFunc is a POSIX sh function of the rendered script. Its body is constant: every
// value reaches it as a positional parameter, never as code. The same definitions serve
// the bash script and the sh -c commands of Commands.
type shellFunc struct {
	name string
	deps []string
	body string // the whole definition
}

// shellFuncs holds the functions in the order they are defined in a script.
var shellFuncs = []shellFunc{
	{name: "capkit_resolve", body: `capkit_resolve() {
	# capkit_resolve ROOT PATH: sets capkit_path to the file that the absolute PATH names when
	# ROOT (empty for /) is the root folder, as in a chroot: symbolic links are followed inside
	# ROOT (an absolute target starts again at ROOT, ".." stops at ROOT), at most 40 of them.
	capkit_r_todo=${2#/}
	capkit_r_done=
	capkit_r_hops=0
	while [ -n "$capkit_r_todo" ]; do
		capkit_r_name=${capkit_r_todo%%/*}
		case $capkit_r_todo in
		*/*) capkit_r_todo=${capkit_r_todo#*/} ;;
		*) capkit_r_todo= ;;
		esac
		case $capkit_r_name in
		'' | .) continue ;;
		..)
			capkit_r_done=${capkit_r_done%/*}
			continue
			;;
		esac
		if [ ! -L "$1$capkit_r_done/$capkit_r_name" ]; then
			capkit_r_done=$capkit_r_done/$capkit_r_name
			continue
		fi
		capkit_r_hops=$((capkit_r_hops + 1))
		if [ "$capkit_r_hops" -gt 40 ]; then
			printf 'capkit: cannot resolve %s: more than 40 symbolic links\n' "$2" >&2
			return 1
		fi
		capkit_r_link=$(readlink -- "$1$capkit_r_done/$capkit_r_name" && echo .) || return 1
		capkit_r_link=${capkit_r_link%??}
		case $capkit_r_link in
		/*) capkit_r_done= ;;
		esac
		capkit_r_todo=${capkit_r_link#/}${capkit_r_todo:+/$capkit_r_todo}
	done
	capkit_path=$1${capkit_r_done:-/}
}`},
	{name: "capkit_target", deps: []string{"capkit_resolve"}, body: `capkit_target() {
	# capkit_target PATH [ROOT]: sets capkit_path to the file PATH names under ROOT (see
	# capkit_resolve), and fails when it exists and is not a regular file.
	capkit_resolve "${2-}" "$1" || return 1
	if [ -d "$capkit_path" ]; then
		printf 'capkit: cannot write %s: it is a folder\n' "$1" >&2
		return 1
	fi
	if [ -e "$capkit_path" ] && [ ! -f "$capkit_path" ]; then
		printf 'capkit: cannot write %s: it exists and is not a regular file\n' "$1" >&2
		return 1
	fi
}`},
	{name: "capkit_write", deps: []string{"capkit_target", "capkit_decode", "capkit_chown"}, body: `capkit_write() {
	# capkit_write PATH MODE OWNER replace|append [ROOT]: writes standard input to PATH under
	# ROOT (see capkit_target) through a temporary file of the same folder, or appends to it,
	# then sets owner and mode.
	capkit_target "$1" "${5-}" || return 1
	mkdir -p -- "${capkit_path%/*}/"
	if [ "$4" = append ]; then
		if [ ! -e "$capkit_path" ]; then (umask 077 && : >"$capkit_path"); fi
		capkit_decode >>"$capkit_path"
		capkit_chown "$3" "$capkit_path"
		chmod -- "$2" "$capkit_path"
		return 0
	fi
	capkit_tmp=$(mktemp "${capkit_path%/*}/.capkit.XXXXXX")
	capkit_decode >"$capkit_tmp"
	capkit_chown "$3" "$capkit_tmp"
	chmod -- "$2" "$capkit_tmp"
	mv -f -- "$capkit_tmp" "$capkit_path"
}`},
	{name: "capkit_mkdir", deps: []string{"capkit_resolve", "capkit_chown"}, body: `capkit_mkdir() {
	# capkit_mkdir PATH MODE OWNER [ROOT]: creates the folder PATH under ROOT (see
	# capkit_resolve), then sets owner and mode.
	capkit_resolve "${4-}" "$1" || return 1
	mkdir -p -- "$capkit_path"
	capkit_chown "$3" "$capkit_path"
	chmod -- "$2" "$capkit_path"
}`},
	{name: "capkit_mountpoint", deps: []string{"capkit_resolve"}, body: `capkit_mountpoint() {
	# capkit_mountpoint PATH [ROOT]: creates the folder PATH under ROOT (see capkit_resolve).
	capkit_resolve "${2-}" "$1" || return 1
	mkdir -p -- "$capkit_path"
}`},
	{name: "capkit_exec", deps: []string{"capkit_resolve"}, body: `capkit_exec() {
	# capkit_exec PATH ROOT: runs the program PATH under ROOT (see capkit_resolve).
	capkit_resolve "$2" "$1" || return 1
	"$capkit_path"
}`},
	{name: "capkit_fstab", deps: []string{"capkit_target", "capkit_decode"}, body: `capkit_fstab() {
	# capkit_fstab PATH [ROOT]: replaces the lines of PATH under ROOT (see capkit_target) that
	# hold comment=cloudconfig by the lines on standard input.
	capkit_target "$1" "${2-}" || return 1
	mkdir -p -- "${capkit_path%/*}/"
	capkit_tmp=$(mktemp "${capkit_path%/*}/.capkit.XXXXXX")
	if [ -f "$capkit_path" ]; then
		grep -v 'comment=cloudconfig' "$capkit_path" >"$capkit_tmp" || [ "$?" -eq 1 ]
	fi
	capkit_decode >>"$capkit_tmp"
	chmod 0644 "$capkit_tmp"
	mv -f -- "$capkit_tmp" "$capkit_path"
}`},
	{name: "capkit_hosts_line", deps: []string{"capkit_target"}, body: `capkit_hosts_line() {
	# capkit_hosts_line PATH LINE [ROOT]: replaces the 127.0.1.1 entry of the hosts file PATH
	# under ROOT (see capkit_target) by LINE.
	capkit_target "$1" "${3-}" || return 1
	mkdir -p -- "${capkit_path%/*}/"
	capkit_tmp=$(mktemp "${capkit_path%/*}/.capkit.XXXXXX")
	if [ -f "$capkit_path" ]; then
		grep -v '^127\.0\.1\.1[[:space:]]' "$capkit_path" >"$capkit_tmp" || [ "$?" -eq 1 ]
	fi
	printf '%s\n' "$2" >>"$capkit_tmp"
	chmod 0644 "$capkit_tmp"
	mv -f -- "$capkit_tmp" "$capkit_path"
}`},
	{name: "capkit_partition", body: `capkit_partition() {
	# capkit_partition DEVICE OVERWRITE PARTED-COMMAND...: partitions DEVICE with parted
	# unless it has a partition table and OVERWRITE is not true.
	capkit_dev=$1
	capkit_overwrite=$2
	shift 2
	if [ "$capkit_overwrite" != true ] && [ -n "$(blkid -p -o value -s PTTYPE "$capkit_dev" 2>/dev/null || true)" ]; then
		return 0
	fi
	parted -s -a optimal "$capkit_dev" "$@"
	if command -v udevadm >/dev/null 2>&1; then udevadm settle; fi
}`},
	{name: "capkit_mkfs", body: `capkit_mkfs() {
	# capkit_mkfs DEVICE OVERWRITE REPLACE-FS MKFS-COMMAND...: makes a file system on DEVICE
	# unless it has one, OVERWRITE is not true and its type is not REPLACE-FS.
	capkit_dev=$1
	capkit_overwrite=$2
	capkit_replace=$3
	shift 3
	capkit_fs=$(blkid -p -o value -s TYPE "$capkit_dev" 2>/dev/null || true)
	if [ -n "$capkit_fs" ] && [ "$capkit_overwrite" != true ] && [ "$capkit_fs" != "$capkit_replace" ]; then
		return 0
	fi
	"$@"
}`},
	{name: "capkit_systemd_reload", body: `capkit_systemd_reload() {
	# capkit_systemd_reload: reloads systemd units (fstab mounts) when systemd runs.
	if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
}`},
	{name: "capkit_hostname", body: `capkit_hostname() {
	# capkit_hostname NAME: sets the running host name.
	if command -v hostnamectl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
		hostnamectl set-hostname "$1"
	else
		hostname "$1"
	fi
}`},
	{name: "capkit_groupadd", body: `capkit_groupadd() {
	# capkit_groupadd NAME: creates the group NAME unless it exists.
	if getent group "$1" >/dev/null 2>&1; then return 0; fi
	groupadd "$1"
}`},
	{name: "capkit_useradd", body: `capkit_useradd() {
	# capkit_useradd NAME USERADD-OPTION...: creates the user NAME unless it exists.
	capkit_user=$1
	shift
	if getent passwd "$capkit_user" >/dev/null 2>&1; then return 0; fi
	useradd "$@" "$capkit_user"
}`},
	{name: "capkit_ntp_client", deps: []string{"capkit_resolve"}, body: `capkit_ntp_client() {
	# capkit_ntp_client ROOT CLIENT: prints CLIENT, or for auto the client installed under
	# ROOT (see capkit_resolve): chrony, then ntp, else systemd-timesyncd.
	if [ "$2" != auto ]; then
		printf '%s\n' "$2"
		return 0
	fi
	capkit_resolve "$1" /etc/chrony || return 1
	capkit_chrony=$capkit_path
	capkit_resolve "$1" /etc/chrony.conf || return 1
	if [ -d "$capkit_chrony" ] || [ -f "$capkit_path" ]; then
		echo chrony
		return 0
	fi
	capkit_resolve "$1" /etc/ntp.conf || return 1
	if [ -f "$capkit_path" ]; then
		echo ntp
	else
		echo systemd-timesyncd
	fi
}`},
	{name: "capkit_ntp", deps: []string{"capkit_ntp_client", "capkit_target"}, body: `capkit_ntp() {
	# capkit_ntp ROOT CLIENT [server|pool NAME]...: writes the configuration of the NTP client
	# under ROOT (see capkit_target).
	capkit_root=$1
	capkit_client=$(capkit_ntp_client "$1" "$2") || return 1
	shift 2
	case $capkit_client in
	chrony)
		capkit_conf=/etc/chrony.conf
		capkit_resolve "$capkit_root" /etc/chrony || return 1
		if [ -d "$capkit_path" ]; then capkit_conf=/etc/chrony/chrony.conf; fi
		;;
	ntp) capkit_conf=/etc/ntp.conf ;;
	*) capkit_conf=/etc/systemd/timesyncd.conf.d/cloud-init.conf ;;
	esac
	capkit_target "$capkit_conf" "$capkit_root" || return 1
	mkdir -p -- "${capkit_path%/*}/"
	capkit_tmp=$(mktemp "${capkit_path%/*}/.capkit.XXXXXX")
	{
		echo "# Written by capkit from the cloud-config ntp module."
		if [ "$capkit_client" = systemd-timesyncd ]; then
			echo "[Time]"
			capkit_names=
			while [ "$#" -ge 2 ]; do capkit_names="$capkit_names${capkit_names:+ }$2"; shift 2; done
			printf 'NTP=%s\n' "$capkit_names"
		else
			while [ "$#" -ge 2 ]; do printf '%s %s iburst\n' "$1" "$2"; shift 2; done
			if [ "$capkit_client" = chrony ]; then
				printf '%s\n' "driftfile /var/lib/chrony/chrony.drift" "makestep 1.0 3" "rtcsync"
			else
				printf '%s\n' "driftfile /var/lib/ntp/ntp.drift" "restrict -4 default kod notrap nomodify nopeer noquery limited" "restrict -6 default kod notrap nomodify nopeer noquery limited" "restrict 127.0.0.1" "restrict ::1"
			fi
		fi
	} >"$capkit_tmp"
	chmod 0644 "$capkit_tmp"
	mv -f -- "$capkit_tmp" "$capkit_path"
}`},
	{name: "capkit_ntp_restart", deps: []string{"capkit_ntp_client"}, body: `capkit_ntp_restart() {
	# capkit_ntp_restart ROOT CLIENT: restarts the NTP client service.
	case $(capkit_ntp_client "$1" "$2") in
	chrony) systemctl restart chrony.service 2>/dev/null || systemctl restart chronyd.service ;;
	ntp) systemctl restart ntp.service 2>/dev/null || systemctl restart ntpd.service ;;
	*) systemctl restart systemd-timesyncd.service ;;
	esac
}`},
}

// helpers returns the definitions of the helper functions that depend on the options:
// capkit_decode (base64 in a script, raw bytes for Commands), capkit_chown and, for
// scripts, capkit_run (runs or, in dry-run mode, records a command).
func helpers(o *renderOptions, forScript bool) map[string]string {
	h := map[string]string{
		"capkit_decode": "capkit_decode() { cat; }",
		"capkit_chown":  "capkit_chown() { :; }",
	}
	if forScript {
		h["capkit_decode"] = "capkit_decode() { base64 -d; }"
	}
	if o.chownEnabled() {
		h["capkit_chown"] = `capkit_chown() { chown -- "$1" "$2"; }`
	}
	return h
}

// helperOrder is the order in which helper functions are defined.
var helperOrder = []string{"capkit_run", "capkit_decode", "capkit_chown"}

// definitions returns the definitions of the named functions and of everything they call,
// helpers first, in a fixed order.
func definitions(names map[string]bool, helperDefs map[string]string) []string {
	need := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		if need[n] {
			return
		}
		need[n] = true
		for _, f := range shellFuncs {
			if f.name == n {
				for _, dep := range f.deps {
					visit(dep)
				}
			}
		}
	}
	for n := range names {
		visit(n)
	}
	var defs []string
	for _, n := range helperOrder {
		if need[n] && helperDefs[n] != "" {
			defs = append(defs, helperDefs[n])
		}
	}
	for _, f := range shellFuncs {
		if need[f.name] {
			defs = append(defs, f.body)
		}
	}
	return defs
}
