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

capkit_systemd_reload() {
	# capkit_systemd_reload: reloads systemd units (fstab mounts) when systemd runs.
	if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
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

# bootcmd[0]
capkit_run 'cloud-init-per' 'once' 'capkit-swapoff' 'swapoff' '-a'

# mounts
capkit_fstab '/etc/fstab' <<'CAPKIT_EOF'
L2Rldi9kaXNrL2J5LWlkL2NhcGtpdC1kYXRhCS92YXIvbGliL2NvbnRhaW5lcmQJeGZzCWRlZmF1
bHRzLG5vZmFpbCxjb21tZW50PWNsb3VkY29uZmlnCTAJMgo=
CAPKIT_EOF
capkit_mountpoint '/var/lib/containerd'
capkit_run capkit_systemd_reload
capkit_run 'mount' '-a'

# users[0]
capkit_run capkit_useradd 'capi' '--create-home'
capkit_run 'passwd' '-l' 'capi'
capkit_mkdir '/home/capi/.ssh' '0700' 'capi'
capkit_write '/home/capi/.ssh/authorized_keys' '0600' 'capi' 'append' <<'CAPKIT_EOF'
c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUZBS0VGQUtFRkFLRUZBS0VGQUtF
RkFLRUZBS0VGQUtFRkFLRUZBS0UgY2FwaUBleGFtcGxlCg==
CAPKIT_EOF

# users (sudo rules)
capkit_write '/etc/sudoers.d/90-cloud-init-users' '0440' 'root:root' 'replace' <<'CAPKIT_EOF'
IyBXcml0dGVuIGJ5IGNhcGtpdCBmcm9tIHRoZSBjbG91ZC1jb25maWcgdXNlcnMgbW9kdWxlLgoK
IyBVc2VyIHJ1bGVzIGZvciBjYXBpCmNhcGkgQUxMPShBTEwpIE5PUEFTU1dEOkFMTAo=
CAPKIT_EOF

# write_files[0]
capkit_write '/run/kubeadm/kubeadm-join-config.yaml' '0640' 'root:root' 'replace' <<'CAPKIT_EOF'
LS0tCmFwaVZlcnNpb246IGt1YmVhZG0uazhzLmlvL3YxYmV0YTQKa2luZDogSm9pbkNvbmZpZ3Vy
YXRpb24KZGlzY292ZXJ5OgogIGJvb3RzdHJhcFRva2VuOgogICAgYXBpU2VydmVyRW5kcG9pbnQ6
IDEwLjAuMC4xMDo2NDQzCiAgICBjYUNlcnRIYXNoZXM6CiAgICAtIHNoYTI1NjowZjFlMmQzYzRi
NWE2OTc4ODc5NmE1YjRjM2QyZTFmMDBmMWUyZDNjNGI1YTY5Nzg4Nzk2YTViNGMzZDJlMWYwCiAg
ICB0b2tlbjogYWJjZGVmLjAxMjM0NTY3ODlhYmNkZWYKbm9kZVJlZ2lzdHJhdGlvbjoKICBuYW1l
OiAnY3AtMCcKICBrdWJlbGV0RXh0cmFBcmdzOgogIC0gbmFtZTogcHJvdmlkZXItaWQKICAgIHZh
bHVlOiAnY2Fwa2l0Oi8vaS0wMTIzNDU2Nzg5Jwo=
CAPKIT_EOF

# write_files[1]
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

# write_files[2]
capkit_write '/usr/local/bin/capkit-pre-join.sh' '0755' 'root:root' 'replace' <<'CAPKIT_EOF'
IyEvYmluL2Jhc2gKc2V0IC1ldW8gcGlwZWZhaWwKbW9kcHJvYmUgYnJfbmV0ZmlsdGVyCnN5c2N0
bCAtLXN5c3RlbQo=
CAPKIT_EOF

# write_files[3]
capkit_write '/run/cluster-api/placeholder' '0640' 'root:root' 'replace' <<'CAPKIT_EOF'
VGhpcyBwbGFjZWhvbGRlciBmaWxlIGlzIHVzZWQgdG8gY3JlYXRlIHRoZSAvcnVuL2NsdXN0ZXIt
YXBpIHN1YiBkaXJlY3RvcnkgaW4gYSB3YXkgdGhhdCBpcyBjb21wYXRpYmxlIHdpdGggYm90aCBM
aW51eCBhbmQgV2luZG93cyAobWtkaXIgLXAgL3J1bi9jbHVzdGVyLWFwaSBkb2VzIG5vdCB3b3Jr
IHdpdGggV2luZG93cykK
CAPKIT_EOF

# ntp
capkit_ntp '' 'auto' 'pool' 'pool.ntp.org'
capkit_run capkit_ntp_restart '' 'auto'

# runcmd[0]
capkit_run '/usr/local/bin/capkit-pre-join.sh'

# runcmd[1]
capkit_run 'sh' '-c' 'kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml  && echo success > /run/cluster-api/bootstrap-success.complete'

# sentinel
capkit_write '/run/cluster-api/bootstrap-success.complete' '0644' 'root:root' 'replace' <<'CAPKIT_EOF'
c3VjY2Vzcwo=
CAPKIT_EOF
