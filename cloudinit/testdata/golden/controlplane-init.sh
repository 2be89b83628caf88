#!/bin/bash
# Rendered by capkit from cloud-config user data. Values are quoted words and file
# contents are base64 in quoted heredocs: nothing in the user data is evaluated.
# SC2016/SC1003: quoted arguments are literal on purpose. SC2317: helper functions are
# called through capkit_run.
# shellcheck disable=SC2016,SC1003,SC2317

set -euo pipefail
umask 022

capkit_run() { "$@"; }

capkit_decode() { base64 -d; }

capkit_chown() { chown -- "$1" "$2"; }

capkit_resolve() {
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
}

capkit_target() {
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
}

capkit_write() {
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
}

capkit_mkdir() {
	# capkit_mkdir PATH MODE OWNER [ROOT]: creates the folder PATH under ROOT (see
	# capkit_resolve), then sets owner and mode.
	capkit_resolve "${4-}" "$1" || return 1
	mkdir -p -- "$capkit_path"
	capkit_chown "$3" "$capkit_path"
	chmod -- "$2" "$capkit_path"
}

capkit_mountpoint() {
	# capkit_mountpoint PATH [ROOT]: creates the folder PATH under ROOT (see capkit_resolve).
	capkit_resolve "${2-}" "$1" || return 1
	mkdir -p -- "$capkit_path"
}

capkit_fstab() {
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
}

capkit_hosts_line() {
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
}

capkit_partition() {
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
}

capkit_mkfs() {
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
}

capkit_systemd_reload() {
	# capkit_systemd_reload: reloads systemd units (fstab mounts) when systemd runs.
	if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
}

capkit_hostname() {
	# capkit_hostname NAME: sets the running host name.
	if command -v hostnamectl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
		hostnamectl set-hostname "$1"
	else
		hostname "$1"
	fi
}

capkit_groupadd() {
	# capkit_groupadd NAME: creates the group NAME unless it exists.
	if getent group "$1" >/dev/null 2>&1; then return 0; fi
	groupadd "$1"
}

capkit_useradd() {
	# capkit_useradd NAME USERADD-OPTION...: creates the user NAME unless it exists.
	capkit_user=$1
	shift
	if getent passwd "$capkit_user" >/dev/null 2>&1; then return 0; fi
	useradd "$@" "$capkit_user"
}

capkit_ntp_client() {
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
}

capkit_ntp() {
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
}

capkit_ntp_restart() {
	# capkit_ntp_restart ROOT CLIENT: restarts the NTP client service.
	case $(capkit_ntp_client "$1" "$2") in
	chrony) systemctl restart chrony.service 2>/dev/null || systemctl restart chronyd.service ;;
	ntp) systemctl restart ntp.service 2>/dev/null || systemctl restart ntpd.service ;;
	*) systemctl restart systemd-timesyncd.service ;;
	esac
}

# disk_setup[0]
capkit_run capkit_partition '/dev/sdb' 'false' 'mklabel' 'gpt' 'mkpart' 'primary' '0%' '100%'

# fs_setup[0]
capkit_run capkit_mkfs '/dev/sdb1' 'false' '' 'mkfs.ext4' '-L' 'etcd_disk' '-E' 'lazy_itable_init=1,lazy_journal_init=1' '/dev/sdb1'

# mounts
capkit_fstab '/etc/fstab' <<'CAPKIT_EOF'
TEFCRUw9ZXRjZF9kaXNrCS92YXIvbGliL2V0Y2RkaXNrCWF1dG8JZGVmYXVsdHMsbm9mYWlsLGNv
bW1lbnQ9Y2xvdWRjb25maWcJMAkyCg==
CAPKIT_EOF
capkit_mountpoint '/var/lib/etcddisk'
capkit_run capkit_systemd_reload
capkit_run 'mount' '-a'

# hostname
capkit_write '/etc/hostname' '0644' 'root:root' 'replace' <<'CAPKIT_EOF'
Y3AtMAo=
CAPKIT_EOF
capkit_run capkit_hostname 'cp-0'

# manage_etc_hosts
capkit_hosts_line '/etc/hosts' '127.0.1.1 cp-0'

# users[0]
capkit_run capkit_groupadd 'sudo'
capkit_run capkit_groupadd 'adm'
capkit_run capkit_useradd 'capi' '--comment' 'Cluster API admin' '--groups' 'sudo,adm' '--shell' '/bin/bash' '--create-home'
capkit_run 'passwd' '-l' 'capi'
capkit_mkdir '/home/capi/.ssh' '0700' 'capi'
capkit_write '/home/capi/.ssh/authorized_keys' '0600' 'capi' 'append' <<'CAPKIT_EOF'
c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUZBS0VGQUtFRkFLRUZBS0VGQUtF
RkFLRUZBS0VGQUtFRkFLRUZBS0UgY2FwaUBleGFtcGxlCnNzaC1yc2EgQUFBQUIzTnphQzF5YzJF
QUFBQURBUUFCQUFBQkFRRkFLRUtFWT09IG9wc0BleGFtcGxlCg==
CAPKIT_EOF

# users[1]
capkit_run capkit_groupadd 'etcd'
capkit_run capkit_useradd 'etcd' '--gid' 'etcd' '--shell' '/usr/sbin/nologin' '--system' '--no-create-home'
capkit_run 'passwd' '-l' 'etcd'

# users (sudo rules)
capkit_write '/etc/sudoers.d/90-cloud-init-users' '0440' 'root:root' 'replace' <<'CAPKIT_EOF'
IyBXcml0dGVuIGJ5IGNhcGtpdCBmcm9tIHRoZSBjbG91ZC1jb25maWcgdXNlcnMgbW9kdWxlLgoK
IyBVc2VyIHJ1bGVzIGZvciBjYXBpCmNhcGkgQUxMPShBTEwpIE5PUEFTU1dEOkFMTAo=
CAPKIT_EOF

# write_files[0]
capkit_write '/etc/kubernetes/pki/ca.crt' '0640' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClBFMGF1R1Y2SnhjUkJXYU02a3JNL2NNUE9JV0pY
RWJITE5NYlF6Yng3UWJVcE01Q3pFVXhLazlLb042NzlkcloKNFY4VzJKdFdxMk9CUHkwL2VVY1c4
ZS9SM2ZHTTEwd0I2RXFTdE9GUDJjT0NNV2xzbVVsdWN5azdUa0xRekFzVQpDM2FnLzBlRWlLVjRz
MWNsLzZ3eUVXbnBNNktoY0VZdlcyKy9sbEtpampMblVobldEN1U2UjhPVm5kdzhIMVR2CkxVcDFC
Z3Bic2hYbDl2Ukp2S3oxVXdSU1NWTDNKOGFtYWR6eDNwNnUwUk5MbmpIa2NVb2lRR0daOWloVWtn
SmQKQzNRclhjak5YUDlLa2hodyt6VnM2alVkRHc4T3ZDdVlyZmdtbXdxTGZaVS9VdjhKSDlXSFNz
Yi9hS2I4TTNvegpQWEJwZlFrNGEzRS9wZU50MURkL01BZ0pRVUEraGpYRk8ycmVRaVJURGVUdFVK
QWQvWkZuOXVhbnA5N0t0NzRLCmZtTVhialh1MzVMbThld3FWa3VvZU16bXBGRFFhNGMzcDgydnpV
Ulc3R1QwZnhQYitFZjJvS3N3QzJYbW5pREUKOTBTcTJ3L2VLckNpZHBGNHYyZnRZemZNQURic0tB
T2M0RUVkWmMvRnlHSGdPSXdONFBNekthdWJWTkhrajhiSQplT3FHY0FZVUNMS1lISDJQM1VHYnhp
TUtYQlRFNFlYbkFreldXTk1URmZXTGRHRTB5ZnBQWXp2Q2ZOdjNaaGdUCkhlcWV6T0pkZy85dmF0
dTJ4bkVSb09Id01xTk43dFo2YkI3TWppcGYzeWt0dENaVGZ0eFdRb3I1NXdHMUt3R2wKVHg2TEhI
ekp0NWw3aGhPRlBtbllTMXM2eEM3ODNhQUFyUTJjNkZDTDZlaDN5T21SVHUvZWdjbHduSjV4WkNS
QQp4WmhjL0tsWEltNFZteVNzejU4dFNlYndYektUeTFtc251SVhFMmVsNytjdFZLZGZVeXhNNGdX
YUJZYnp3ZFFXCnpWdk8wUFFaS0M2Vi9INnBrdjd3RThMczkvd2RMS1o2Ci0tLS0tRU5EIENFUlRJ
RklDQVRFLS0tLS0K
CAPKIT_EOF

# write_files[1]
capkit_write '/etc/kubernetes/pki/ca.key' '0600' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpyT0srT0o3SjFLbE4ydTJ3WitHWlBPVjl0
RGhQWGpxK1U0bWdoLzl6NXMxbWdXYjQwVkJJY0dtV0EwQXY1WXAxCnNZK2QwMTFuODJPZkJ5ZUNF
WFg1OS95aDYxaWF5MC9wRjhGQ2V6aWo3WHJrbXNjUUp1dzlFVXdoOGd3cFpjcVUKcnA2TXR2V0pR
d1NHUGlqQUdEUUk4MUVVSDBVUDRQNmtTWnpqb2JNc3V5YW5hdk1oNExXNEZJOWRzUUM1NFkwbgpn
R2tuTjloTWU0RVJZQ3NwMytOQmcyU0pyazNjWmxRcll3OXMrZ2RINEswRVRmWEtKeFVvSGRtYjBn
TTdPNDBDCmV1bTNpQy9pMDNQL3U3VGU2Njd2c21GVzJDelZoNVl3RzNtZTUrbGJUdTZsMU9WcG1i
d0owcUUyUVpUYnphbVgKVHNqbGVxRFZWczdWRmVRODVGRGlHcWo1c2dtYVVvWjUvUFJhN1JRdHRn
dC9oSXZUbWJZL0NUT3RFbGJJbXVnagpzazRkZ2ZyajA5T0MxZ0FTMkRtZlJwLzBCT083K1FnQ2Vy
SWxObHcvNDcyL1dORDdUTnRqb1pwbkNDeHBmdmtRCndZTGNna3lQc0VqSk5iUzBiMUlzTmdSNjQy
L3UrRVpVd2Vobzg2RHQxMmhTd0o0MVFVZUNGZ2RuUTV0SnJPcWsKSVp6Q1VCYnYvTWdxbmhlek51
L3VRS3MzNDZSL3d4MmxWd0owa2YwMEtoYytoTmNZSGN6NFVFdmVrWlNwSnVpLwpFNm5ZL2kzbXQ3
OEd3Y1ROTHEwMFF3aVhVNkZVdlB2Rm05aGQvUDBwSzhFM0RQUU44eW12OFBydERxem5RN1RyCnE2
dlhmaHJZTTh3alpIcVppMzZLVWx4dXZtZldDY0xyQ1M0bld6aExQRjJTM1RId242MVlZbDJKdFJ6
eE9URCsKV1MvN2lEWUZCaDR3UzlPd3UxTHdpbi93Q3ZOT3pMak5aQ2tqL21DZWRsbGJBWEt5SW5J
SHZzanN1N2RyTmgxVQpTNWlPRGVVVWV5bjVySVlQTHRXZFBabFZtUVc1cVFWaGJ6dk1sU09mQ2lJ
dW1razdiNzFRaXFKZks3cFk3YXpXCmk2ajFrdTlZUXBoVjk0a0lpeVpka3R6YU1uNTQxQjRTNHFD
WU12d29KSTIySTVqV0RZblJXTi93RkxYeERNalcKbWlhTExVT2ZEa3Q1NGQxSE5hUjR3a2lIc01E
MUQrTWpTZXRxQ3dCWWg1cmE2dGhjRWpOdXJSVE1iTW5wQ0VneQoySzMwTXRFc003ZnJ2K3dVL3hj
QzR3RDBTb1dFaG13UUY0V2pWcW9yb1RPQ3NZd1BzQThRSTIvMkl1UWE5OE9FClU0Tldxa1lpbHBV
ZWxLU2ZFcHIwQVNnTHhFV0xwR3pHVFpkYjlzSW5obHlKZEQvOG4zTXIrM3YvcHBTTEJwU08Ka2Zj
eFF2V1dyNUs1bWZTeWMvRlZLVTBwVVBWTTJWQzBOWWg3bmtwRVh0eXBLbEFZM1R2TTVWU2oxVEV0
Y0JqNQovazhJaFFFTDNmRUE0S2V2amkwNTZqNWY5NlZrWWoyaGNmSzdia3FCRmxmS0N4Z3YKLS0t
LS1FTkQgUlNBIFBSSVZBVEUgS0VZLS0tLS0K
CAPKIT_EOF

# write_files[2]
capkit_write '/etc/kubernetes/pki/etcd/ca.crt' '0640' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkRtZ0JaUDRwYjYrOEM0NDQrVjlYZ2xuZ3JpRUFX
RjBZd21DU05uMWE3NUp1amJzWFpDZ1djbU9HTmNBR0Ywa1oKSUNCMGNMeFp3dWJpYUZGbXEwL2p5
R1hsNmJvYXpPdFg0V0Q2Z3RRVHRYeHYvTGRlNERxVDJwOHA3RzFJSDFXSQpDWVhneHFIUXJLODhu
Uy9HZWp2Z2hGcnNiSEJxaU5pcUgzN2Q4UVBXc203RFczamh2YjlITWlSVlhDZERpcmZ5CmtPcXAr
Zmw3eFpuS0l2aDk3V0s5ZWxtZmd0SEI4c241NWdpK3pLdHZRWmVmc1MvaXBZa3QyQVIxOUsvZWtr
NGgKQ3dEUk84VlhKMURSVTlaemt6dEd5dzZyRUFsd0hMaThvejQ1ZWN5SkVJdWRLU3d5QWRveGc4
c3dPUFFEZ0h0VApXVU9TWjVNaHRjSHE2bGFvb3JNZW5VQkRHQTdjK2xibXRRN2d4MklSTkxZL0RI
MjdZMTBSOGRuQ283ZmZGZGdsCnVlZlNjclM3YllQUllPcXlHeXNrQ0N1aGRJamQ3SVo0Mm5CZDhw
QnVQOXFqUUVXU0FVUmxzSkJWNGJOSnllMjAKeng0b2c4Y3c3KzcyS2JIR1k2bUxJYVl2bk00d2or
SVNpcjRTejA0SEZJRjFyQmlsaHdGSFE5TXl4TUl3SGM5QgpsV1pGaCtsRkFScG1YSm5QS2J4OW1l
SzVWL08xdnpEWitYMzJQaXJ5d3l0VnV3anVOVEM2aVhmeGgxSWduQ3ZRClhaU0RidEsrYzExVC9l
bjlzTUxCRTg1MWZFVkNKeHkxcUVHL2NPYjQ2NWlBcDMyeTkzVVZSRisvaXhtYVRad0MKS0dLQzR5
MnRZbnN0Q0ZFNG9ENW1pQ293ZUxlcmRVMWpSVlZ2TmJLbENieXNrZzdINDQwd3Y5UFdDSWQrVlVI
Qwp4dnpGRGlCZkRiUzZabXZOWHo5WmNGMWxrd1pqdkNBamVHajlRTVFydDd2dDhuR0hYRjdLa0Jy
THhDNGxUWi9xCmc2bkZKeEIrcTdYVGp3bm5yN1pIbjc0eitzUUFibWhGCi0tLS0tRU5EIENFUlRJ
RklDQVRFLS0tLS0K
CAPKIT_EOF

# write_files[3]
capkit_write '/etc/kubernetes/pki/etcd/ca.key' '0600' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpmeXI3MU96eEJ4c2k3R2o0emRUS1JvNXo2
L0xSeHVBU29sTkNpcnprdCtmdGNDdmlCZDlYUUVGQ1kxY1BrcHd0CmJkdERrQms4a2hvWmZ0eVpS
bWpsdWgvNFkyL0hkNFdoY3BQaDhDbXMyWG1ETEVuWVdlQkhyYUVTY0srRW1hYTYKM0lheU1Vdi9x
cld4aU9qS1lrS0lkOEdHVlE5VHlKNTJYNHpZMkZna09EdWNYcGtUL1VMeDVtdlpja21tYW9Fcgps
clptT054ajVFaktVTDhqNDlWQmNQRTJNM29acFg2WEtCQkI5cHNFSmxGbFZGMi84U01VbUlJUGQx
NHB1RmkvClhSWmJnbzRianV0M3EzQ0FtN0Y4THlDL3AxRm8zZHJLSWRhTDlreDJvY3pSdGFiVWtp
cnVMRG00L3V0d01LSm8KSVlzSFR5anNpOHM5bWN0Vko0R3BPdVpRc1czc3ZOTFYyeGtLV0lML1RD
dHdHTHBKdTlBMG9DdWNFWWU5cjlKUQpGd2NpN3lPZC9kc1NMWk5ENE9JckRLN2ZWbENrUlhkNUpy
M2xISUJRKzBxWVFQV29wMDhPaFFHSS9YR3FRc29BCjFvWmNFTFJDcFpnUHU0bkc3czZPY2NtckVY
dHFkNEY1anR6WXYzMVNrQXVFTnF5b2xDcGxsRW4vM1p0YWZiWUkKUlNYOGF6ZUphOXBlR3VBMnUy
dER0RDZVdnBWeUhpN2RIYXU0dHFtc3pya1R1bnJpSldlUkdUcjJPcENQL1NxLwp5eXNxRVVRZ3di
UkROa3dVeU42UXRzL1AzdVgyMnhac1pQeDAyMG1GM3VsaytlMDJFbUp4ZEtEQXlZTjdzK1pHClRM
OWIrakZGTU5GOE9MdU5NZHg4VW00aysxNStPTTlDUFBQbGVRYU1KcGlpUElmL2hnNmZvRmwzcWNa
bGhaVUcKdHA5UE9zTFgweWI5K1JBd2JUSXA3U3NkZU16SFNpQUl5OWpZSmZmZndZSTFXTGVta21G
RjlNb0ZWR0hYTitIYwpaVXdpYmREM0tFMGUzZUFiUEJoQ1pXVEJ1VVV4TDFDNkVkbEJrYi9pbzRL
WnV1WHlCOU5JZEtKMFhJUDZ3am00CjlXUzcrcTFLOGE5dmZGWVJiMmE4bU5MZ29hUEs5S29HeC9n
Z0JOUitpRnBUMmlHYm0yczRTbHg3aTl3MXpUdGkKRXlSWk05T09QcmxFR0NKRW0ydTllaThhMHFZ
Q0doMkJHT0xKYkJXcHV5RTEya3h2R2JEUElWNnE3aWl4dHBEZApkUWVRZjVSSitHZzRmUzNhLzVt
d1k2SGllSVlEdXpueHpVQkZ3SnIyZlpBc0hRN0lFTjYyVnp6SWd1dVR5Y0tICktQUnQ5c0dJcWlS
NWNhT3N5V2pnMjRkTEdWSWhmYXJFcnZKeElySXZOeGhrT1dIQXYwSDMxRWJBR1E1ZWNOMmoKL2dB
T3kxYkZlWDdrcUpIS2JTejVrTHNyNWNIUGEvc25yMW5INm9HQXJVZndTdkxPNXBtc25YNkNhc05r
b1BPLwpxbXJNS2FvckdUUnlKMW1VOTZ5dzdWME1nM1hrQW9mY3ROeGNobTIreE44eXdxeWQKLS0t
LS1FTkQgUlNBIFBSSVZBVEUgS0VZLS0tLS0K
CAPKIT_EOF

# write_files[4]
capkit_write '/etc/kubernetes/pki/front-proxy-ca.crt' '0640' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCjEreitZSWROblNUKzg4c0EzbUtHSXlIUzA5c1ls
clpVU2czT2ZxUVBna3Q2aGt4di8vR09jZlV6SHJZRzBTdzgKVVpYOE5pQjdoY3piRUUxQlN2YzJt
QTJobGVxUDVUZVFqemlBQ0xFS1BsSTZrdUFKcnkzQm1WY2dsU2xoVmE1SQo5QTE4NUhSQ3N5OStS
RjZqQlRYUlBZSXQyZEZYRStLZHp0RTdCc2NVQ3MrbHVjY211SFJLOFZxMExxTGxpNWZ2CnlDTjlD
VzdLOFRIdjg3MnBwcUhqMlZKQlVmSEpEcXdndzlLMjFXYmRIZEhGeHQ0Q2lDcFIyZGcxTUJBeDlw
TUwKZXRyQ25RTlE3bWRIYVgrakJtNWd1b0VPOGtveHdpQWczYVhyWUg4VGhHL2htM2F3Y3lSdWhq
NHpSaFJkckJEWApkaS9IaGQ2RUlCbGQ5dDVmOVBGUWhTMnAxNzlMb2FoRDdFRkFsVXNGa2F3VnJZ
RTJrenR1UDczanFpU1VROUN5CkpHc3RFRWdoTEpmbEp0a2U1YzlrRHRtVzd6VEU5dGdWcnpZRFlG
TW5RdlNIWHBBZTZ2aEMwUGtNSnRQSXRGQVMKa05HZWVReXpsT3FvaVVLMEY3bWFla0pzTFM0OTVa
SmNlTUppZXg2Vk9HdWRabVlKTG16UmVZdDdXUC80TG9uaQpKeXg2SjBQUDJBSEg1QlBZSTdlc0lZ
QzVUOGw4VHlPSGQxS1JLTzlkbk8rVHd3bHdnUytRTnFwVFVDbng3N1hUCnVOcjYrdlM5SVpIbDdZ
YzdtbEVGa0JHWnk3ZGR2L3VrOGxLSzJwYnhtQUtKUDgvZC9GTlZuMnFCWk80VWpTaS8KTGc2Kzdp
NmltRlg1MW1nQi80TkE5RnVPSkU0bm9HZ1p4aUtuenpuREVKc1RBMVRFak5VQVJSb3NxcnM3U0Fz
eQp6OElURGI3UURTZmMrWGpFVnEwMmp0SnZhcStPaWxJTExZZFA0RUhQdlEvU3hNYVBTMHRXR2ZG
emRsT1VPdzNUCnhzSnhBemRDZWZZenFGcXRYRHh2VTFaR0t4dlZuNGM2Ci0tLS0tRU5EIENFUlRJ
RklDQVRFLS0tLS0K
CAPKIT_EOF

# write_files[5]
capkit_write '/etc/kubernetes/pki/front-proxy-ca.key' '0600' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpZT0NoY3hrM1M1OWJmbnZyM0xOeGsyamxt
cERHK1ZGOXJVNWN6QVJ5RWxBTUgyUlhPTUtRZ2J4bWMzVzZ5RTJHCk1BL1R6bzd3TjBoYnJ1SkZE
eExhRUIwQTRGaUlqaDh6UnYxazE1cXl5ci9YT0RpNmxPdkY4akJPejdnOUxwY0wKZnlXSXNkcjNJ
MTVDbHZkRW9CRG1LVHFjVVhDVlJjZGlnbWNUdm5FaHhJTGhUeGFRWkZMcGdidTZuUTBxNzM2bgph
MnFBZVg1Z0Z3blBobkN4TUU2ZHVGSzJJSTZWeVFXejZ1dVIrRU5ONzF1VUN3TWp1WmdONTBaYWtk
V29JdlFXCjBWUXQ2WXdQR2d5MG1tMmVwNjhSbVg1bGI3OExCcWoxK3NxL3YvYlRHQkdqTXBXYmMx
SE5ER21yRmltaXBkcDkKWGdtZzV5VzEraHY2dHdPTnBMbnQrb01LRko2NlU0RHNWMHNPS0RoNDBX
SjRBb2hGcEFsaEJzSXZ1UlVGTjZPUwpCcnFCSSt3QzFERk5JdTVUTEx5ekdjTnNDcGRDbVlsSy94
UXFnbmJiNWRnc21OWEJ2cXZMbjFkTW1oUWx6RWkwCnp4b2NvWXJQRlZmT0Y2U2dIOG5oNHFaaHBM
QVRoTk9oc3JSaXN4TUh4VVU0eDhsa2xSMWZaWExVU0IrQ1dlSnAKa085ak9MSHQrZWd2Ykk4NzQv
Nk5nendqTHphMEJwSUtGTGdiRGs3RmpUUncrMHZrUGp5WFE4bHFYN1YxWDdKNwpYYlRHSHdBSlE3
cVRieDJJQ25lZTZZK3JwbkxaWEZLZjZHSGJSZlBFVGljUVFzZDdNVzRPSHJtcXNnbXJvUnNHCnR1
MCtsMytOcmFoWjdWdlcxWWFuTGRXK0RMZkdwaS8xVWg2bU9ja0tvMitCNVlueW1tNDJIbDhBYnJN
YkUyNy8Kc0VZQ0IxWkY3dVhuRnlEYTZNL3E1NkhnTmh4M0Z5V29qR1laT1dRb0pOR3QzbG1pMlRi
VHRpZnN1ODY4Q0VWLwoweGdQRmxIeHNKL09DL0xUamtDNkt2UDc3N05UQjNBcHhVR0Z6eFM5Nkkx
alhDajhWUUFIbytrSkk1RUFzL1h4ClR1cWZuMTUwVmwvc2NMdmRWcVBUSk1YTTNmOXI0bTJ3NWlO
MlJsMTVudDZ5VG9WU0U1LzloUzRqbFlCVFV3ekgKTzA1cCt3c01HQ1NFdldlN0RjTlEvRG4rMjFu
c28rRGk1Umw2aURteG9mYzVidXdaT0ZXVlFwMDVHZUs3akhyUApzak9LeGNmZUhOdzQySzR5Rnpk
bXJiWGdJNnBuYmJPdk5ITlAvNFJxMnVxRkJkcGZlaEFjMnVWM2IyRWlrWkJZCmNKMEFzMDBnSU10
bHlsTDg4a0FMZGt3UEJoZGhDVnI5VW9zdy9WQWsxVHJuYjRacms0US9wZk5sQmZtQkhJYXUKZ2pI
dDBaZ0FIZjBiTUpmTUJPRmlKc2ZKZCs3K1pIZEJWMG9XakhOMGF4YTNlSldvM3ZCNXQydi9HM3kr
eDFMdwpkbmlwVUl2ckx3U3JJaWJ2NkNmL3h2eERlN3BhbVpEeXc5VTVxcU1CVndGZ2FCSFMKLS0t
LS1FTkQgUlNBIFBSSVZBVEUgS0VZLS0tLS0K
CAPKIT_EOF

# write_files[6]
capkit_write '/etc/kubernetes/pki/sa.pub' '0640' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KdVFsVzRvOHppSEhkcXJ2VXZmZnU5OWNXSlN2ZVQr
RDhNRnBIbWNOUjRwZ1FOOFhrMzNKeW96cElQd0E4YWRvbwp3WDVDWmI2cDBlTkQxZVgybmQ4UVlX
VzhWcFl5UUtEUmJkSHl3WE1ma2JybVFnR2ZVS1huNEtmdjFqd1J2OHBTClFrNVE5MXJnaG5MWVE2
bWhzWFU2YUxQRFlOL1Y1SnpSTE85a2RLcE1wWTA1bURRR3ZWUVhrb1ZNeDRRMGV3YVAKOXlMUzBy
WWl2aC9Pa1huaTZZTDFqN1FidTZnTkdpMW5qZTdJWVFqTTVPUG8yQXBKdUNXMlgweERrRXd0aG0y
ZQo1aHRxUkg3Y1U2cz0KLS0tLS1FTkQgUFVCTElDIEtFWS0tLS0tCg==
CAPKIT_EOF

# write_files[7]
capkit_write '/etc/kubernetes/pki/sa.key' '0600' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpybGFCMTJJQWh6T2Z6ZTdpVFd3d2JqMjFR
THlJTmg0eExsdHpoQUYyWWlubG1VZHJsb2VzcGJJWTlrU0RpekluCnU3c2tJRzN1RFM4MnZrZDdt
a0RqdnhLdjlQdFJpRWxxQ0c1TUZ3Qk1YbjIzaElodlBaVDI5dUlNbllsRUxXSEkKRWplK3RLSkZz
TitwWUhqeWY2eGUzVW5sRXpxWXFKQ2c2bU51ZFAwOUVrUjc2WCswbGo3ZmRvOThxM2ZaQlByVwpI
aWZUYTJSSHQ2bk9nQmpzRGRMa3Y0aGowbGdnOFllemp6WVpBS1VrUW82Zjd5ZDRzQ0dTTEwxNHBM
TEpDQUFSCkdPVm5mMmpMZmZHYlFsWUtTcTlJSWxPZWdOYnBjRFJmeTM2d01tenJtSWFwdzlqYURv
bVJBWEd2UjMvZ3lFWkUKcXQzRGpkWGJJMzZhVnpVY3lzTURRV2lONFRRSk0wWTdxaW8ycWZmM1RM
SjlsMmpBbDdvWjJaRDRpOVlnMWpqbgpDNmQ3U0QxTGhQMmJFNWF0UEhXU1dLYWFqdjBEcndHTFNt
cWF2RVptdjBIaVU3aThGWUdaSGRWbzV4VVFKWkx0ClBZeURNbWQ4NExrYUZTMTJ1QUhPL2toVi9K
dWk4THd0Q3UrNXZJMGlGVk1wVWtNRi9oNU1rNUoyUWJ4cmlYaWwKQkRJTlhvM0ZMSkpwMkFVdGlO
NUJmNlVlditEMStlSDNuZUNqNXZwZmY0QjlvMW45VTBFU2hjS0RtWXY4UER0QQpQN0pIa2xFUktP
R25QbUFwRUkxV3Q0M25Eb0dnTE9YV2x1Ni9RdzRtRElUQzhzckpLMEE3L2tESnFJOCtGdCtkCndy
Qk9WNDRyMUNCQXVEUCttTWYvTVNyYWViQUViUytSME9Id0pVUitTdmdaZmFKRGFWM0pLVTZSZkFI
SjhSWTYKUGpyVjRlazg4TjdpVlRHUVFuUlBVeHVqa2pOYi94ZnB2Uk5DaDE4b2NieXFxTjNXOFda
amQ5ZVN4NGlaR0dxQgpCakJsUGZ1YlIxSDVZTkpseVEvcS9ZS0wzUEtWeU1QcUV2WVRWN3dLSDl0
ZGVRcE42eVhZVC9XeTlOU0FVVjBHClNFcDJMbElzdUEwL2NPMktoeXdlTzA4NExRQ1lCYmVKVlVm
TnBDTHFsN1FOaTAzR29OK3NDblN5eHJ4b2hKWEkKSGIyMHltSHNsRVI4VGppNzBTMlpRWFlxQmdF
VTZjbUVjUnMrK3RMTURqWmdKalE2OWVka0liSVlGaGQwK0JSeQprcHJQREtQRmhtTERCSlViRFJ5
bmljSDNudmVNMlBvc1V6ak84NGJQZGNabTloVERyeWFROGNaczhaZjkrWFBZClRQY1doN3ptbXZy
QnBmYkdQellwMXh4TEpaVGtiREZ5VU1tTnl3WFFvWStmUFFLSUhDaURMZXRiZU1BcHRCeTEKSmNR
MDlnc1Z1bFM5d1paWkZ6U21EMk1xVzE2cGdHUlBCL01OZGZudTZPcXpoOWRIcDh0U1o1RWJiQUVr
NmlSTQo0VkdBa0t5M1FNeENGQkpwZDYzc1RPYUhuQjdWYzN0QXQ3U2FibjY4Snp5S3hFelMKLS0t
LS1FTkQgUlNBIFBSSVZBVEUgS0VZLS0tLS0K
CAPKIT_EOF

# write_files[8]
capkit_write '/run/kubeadm/kubeadm.yaml' '0640' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tCmFwaVZlcnNpb246IGt1YmVhZG0uazhzLmlvL3YxYmV0YTQKa2luZDogQ2x1c3RlckNvbmZp
Z3VyYXRpb24KY2x1c3Rlck5hbWU6IGNhcGtpdC1kZW1vCmNvbnRyb2xQbGFuZUVuZHBvaW50OiAx
MC4wLjAuMTA6NjQ0MwprdWJlcm5ldGVzVmVyc2lvbjogdjEuMzQuMQpuZXR3b3JraW5nOgogIGRu
c0RvbWFpbjogY2x1c3Rlci5sb2NhbAogIHBvZFN1Ym5ldDogMTkyLjE2OC4wLjAvMTYKICBzZXJ2
aWNlU3VibmV0OiAxMC4xMjguMC4wLzEyCmFwaVNlcnZlcjoKICBjZXJ0U0FOczoKICAtIGxvY2Fs
aG9zdAogIC0gMTI3LjAuMC4xCmNvbnRyb2xsZXJNYW5hZ2VyOgogIGV4dHJhQXJnczoKICAtIG5h
bWU6IGNsb3VkLXByb3ZpZGVyCiAgICB2YWx1ZTogZXh0ZXJuYWwKLS0tCmFwaVZlcnNpb246IGt1
YmVhZG0uazhzLmlvL3YxYmV0YTQKa2luZDogSW5pdENvbmZpZ3VyYXRpb24Kbm9kZVJlZ2lzdHJh
dGlvbjoKICBuYW1lOiAnY3AtMCcKICBjcmlTb2NrZXQ6IHVuaXg6Ly8vdmFyL3J1bi9jb250YWlu
ZXJkL2NvbnRhaW5lcmQuc29jawogIGt1YmVsZXRFeHRyYUFyZ3M6CiAgLSBuYW1lOiBjbG91ZC1w
cm92aWRlcgogICAgdmFsdWU6IGV4dGVybmFsCiAgLSBuYW1lOiBwcm92aWRlci1pZAogICAgdmFs
dWU6ICdjYXBraXQ6Ly9pLTAxMjM0NTY3ODknCg==
CAPKIT_EOF

# write_files[9]
capkit_write '/run/cluster-api/placeholder' '0640' 'root:root' 'replace' <<'CAPKIT_EOF'
VGhpcyBwbGFjZWhvbGRlciBmaWxlIGlzIHVzZWQgdG8gY3JlYXRlIHRoZSAvcnVuL2NsdXN0ZXIt
YXBpIHN1YiBkaXJlY3RvcnkgaW4gYSB3YXkgdGhhdCBpcyBjb21wYXRpYmxlIHdpdGggYm90aCBM
aW51eCBhbmQgV2luZG93cyAobWtkaXIgLXAgL3J1bi9jbHVzdGVyLWFwaSBkb2VzIG5vdCB3b3Jr
IHdpdGggV2luZG93cykK
CAPKIT_EOF

# write_files[10]
capkit_write '/etc/containerd/config.d/registry.toml' '0644' 'root' 'replace' <<'CAPKIT_EOF'
W3BsdWdpbnMuImlvLmNvbnRhaW5lcmQuZ3JwYy52MS5jcmkiLnJlZ2lzdHJ5XQogIGNvbmZpZ19w
YXRoID0gIi9ldGMvY29udGFpbmVyZC9jZXJ0cy5kIgo=
CAPKIT_EOF

# write_files[11]
capkit_write '/etc/sysctl.d/99-kubernetes.conf' '0644' 'root:root' 'append' <<'CAPKIT_EOF'
bmV0LmlwdjQuaXBfZm9yd2FyZCA9IDEKbmV0LmJyaWRnZS5icmlkZ2UtbmYtY2FsbC1pcHRhYmxl
cyA9IDEK
CAPKIT_EOF

# ntp
capkit_ntp '' 'auto' 'server' '0.capkit.pool.ntp.org' 'server' 'time.example.com'
capkit_run capkit_ntp_restart '' 'auto'

# runcmd[0]
capkit_run 'sh' '-c' 'swapoff -a'

# runcmd[1]
capkit_run 'systemctl' 'enable' '--now' 'containerd'

# runcmd[2]
capkit_run 'sh' '-c' 'kubeadm init --config /run/kubeadm/kubeadm.yaml  && echo success > /run/cluster-api/bootstrap-success.complete'

# runcmd[3]
capkit_run 'sh' '-c' 'echo "control plane $(hostname) initialised" > /var/log/capkit-init.log'

# write_files[12] (deferred)
capkit_write '/home/capi/.kube/README' '0600' 'capi:capi' 'replace' <<'CAPKIT_EOF'
Q29weSAvZXRjL2t1YmVybmV0ZXMvYWRtaW4uY29uZiBoZXJlIHRvIHVzZSBrdWJlY3RsLgo=
CAPKIT_EOF

# final_message
printf '%s\n' 'kubeadm init finished'

# sentinel
capkit_write '/run/cluster-api/bootstrap-success.complete' '0644' 'root:root' 'replace' <<'CAPKIT_EOF'
c3VjY2Vzcwo=
CAPKIT_EOF
