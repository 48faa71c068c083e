#!/usr/bin/env bash
# Installs TurboJPEG (libjpeg-turbo's API, Debian's libturbojpeg0-dev) so that npm's build makes
# the native JPEG decoder (native/src/jpeg-decode.c; binding.gyp builds it only where
# native/turbojpeg-found.sh says TurboJPEG links) and its tests run under MGPU_REQUIRE_NATIVE=1.
# Needs root (apt). Does nothing when it is there.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec bash scripts/ci/install-system-library.sh native/turbojpeg-found.sh libturbojpeg0-dev TurboJPEG
