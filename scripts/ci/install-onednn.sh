#!/usr/bin/env bash
# Installs oneDNN (Intel's oneAPI Deep Neural Network Library, the library PyTorch's CPU
# convolutions run on; Debian's libdnnl-dev) so that npm's build makes the convolution addon
# with it (native/src/onednn-conv.c; binding.gyp adds it only where native/onednn-found.sh says
# oneDNN links) and the wasm backend's convolutions run on it. Needs root (apt). Does nothing when
# it is there.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec bash scripts/ci/install-system-library.sh native/onednn-found.sh libdnnl-dev oneDNN
