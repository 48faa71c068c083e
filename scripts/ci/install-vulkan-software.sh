#!/usr/bin/env bash
# Installs Mesa's software Vulkan driver (lavapipe) from Debian bookworm-backports, so the webgpu
# backend (Dawn) gets a software adapter on a machine without a GPU: the webgpu integration tests
# run for real on it. Mesa 22.3 in bookworm proper is too old for Dawn; backports has 25.x.
# Needs root (apt). Idempotent: does nothing when lavapipe is already installed.
set -euo pipefail
if ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 && dpkg -s libvulkan1 >/dev/null 2>&1; then
  ver=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
  case "$ver" in 2[4-9].*|[3-9]*) echo "lavapipe already installed (mesa-vulkan-drivers $ver)"; exit 0 ;; esac
fi
BPO=/etc/apt/sources.list.d/bookworm-backports.sources
if [ ! -f "$BPO" ]; then
  # The same mirror as this machine's own Debian sources.
  MIRROR=$(grep -rhoE '^URIs: *[^ ]+' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -1 | awk '{print $2}')
  [ -n "$MIRROR" ] || MIRROR=$(grep -hoE '^deb +[^ ]+' /etc/apt/sources.list 2>/dev/null | grep -v security | head -1 | awk '{print $2}')
  [ -n "$MIRROR" ] || { echo "no Debian mirror found in /etc/apt/sources.list*" >&2; exit 1; }
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$MIRROR" > "$BPO"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
echo "installed mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"
