#!/usr/bin/env bash
# Usage: render_quadlet.sh <service> <image:tag>
set -euo pipefail
svc="$1"; image="$2"
cat <<UNIT
[Unit]
Description=$svc (dev)

[Container]
Image=$image
ContainerName=$svc
Volume=/srv/$svc/data:/var/lib/$svc:Z
Volume=/srv/$svc/config:/etc/$svc:ro,Z
PublishPort=127.0.0.1:8080:8080
AutoUpdate=registry

[Service]
Restart=on-failure

[Install]
WantedBy=default.target
UNIT
