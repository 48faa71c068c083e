#!/usr/bin/env bash
# Installs TurboJPEG (libjpeg-turbo's API, Debian's libturbojpeg0-dev) so that npm's build makes
# the native JPEG decoder (native/src/jpeg-decode.c; binding.gyp builds it only where
# native/turbojpeg-found.sh says TurboJPEG links) and its tests run under MGPU_REQUIRE_NATIVE=1.
# Needs root (apt). Does nothing when it is there.
set -euo pipefail
if [[ "$(sh native/turbojpeg-found.sh)" == 1 ]]; then
  echo "TurboJPEG already installed"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends libturbojpeg0-dev >/dev/null
[[ "$(sh native/turbojpeg-found.sh)" == 1 ]] || { echo "libturbojpeg0-dev installed, but a TurboJPEG program still does not link" >&2; exit 1; }
echo "installed libturbojpeg0-dev ($(dpkg-query -W -f '${Version}' libturbojpeg0-dev))"
