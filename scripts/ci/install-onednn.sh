#!/usr/bin/env bash
# Installs oneDNN (Intel's oneAPI Deep Neural Network Library, the library PyTorch's CPU
# convolutions run on; Debian's libdnnl-dev) so that npm's build makes the convolution addon
# with it (native/src/onednn-conv.c; binding.gyp adds it only where native/onednn-found.sh says
# oneDNN links) and the wasm backend's convolutions run on it. Needs root (apt). Does nothing when
# it is there.
set -euo pipefail
if [[ "$(sh native/onednn-found.sh)" == 1 ]]; then
  echo "oneDNN already installed"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends libdnnl-dev >/dev/null
[[ "$(sh native/onednn-found.sh)" == 1 ]] || { echo "libdnnl-dev installed, but a oneDNN program still does not link" >&2; exit 1; }
echo "installed libdnnl-dev ($(dpkg-query -W -f '${Version}' libdnnl-dev))"
