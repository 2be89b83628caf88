#!/usr/bin/env bash
# podcloud's Pod entrypoint: run the Machine's bootstrap script once, under systemd, after containerd is up,
# then boot the kind node image as its own entrypoint would. The bootstrap Secret is mounted at /opt/podcloud.
set -euo pipefail

root="${PODCLOUD_ROOT:-}"
unit="${root}/etc/systemd/system/podcloud-bootstrap.service"

install -D -m 0700 "${root}/opt/podcloud/bootstrap.sh" "${root}/opt/cloud-init/bootstrap.sh"
mkdir -p "$(dirname "${unit}")" "${root}/etc/systemd/system/multi-user.target.wants"
cat >"${unit}" <<'UNIT'
[Unit]
Description=Cluster API bootstrap (cloud-config rendered to bash by podcloud)
After=containerd.service
Wants=containerd.service
ConditionPathExists=!/run/cluster-api/bootstrap-success.complete

[Service]
Type=oneshot
ExecStart=/bin/bash /opt/cloud-init/bootstrap.sh
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
ln -sf ../podcloud-bootstrap.service "${root}/etc/systemd/system/multi-user.target.wants/podcloud-bootstrap.service"

if [[ -n "${root}" ]]; then
  exit 0 # a dry run under PODCLOUD_ROOT: the files are written, nothing is booted
fi
exec /usr/local/bin/entrypoint /sbin/init
