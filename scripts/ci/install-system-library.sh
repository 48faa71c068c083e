#!/usr/bin/env bash
# Installs an optional system library from Debian's packages so that npm's build makes the addon
# that uses it: `install-system-library.sh <probe> <package> <name>`, where <probe> is the
# native/*-found.sh script that binding.gyp asks (it prints 1 when a program using the library
# compiles and links). Needs root (apt). Does nothing when the probe already says 1, and fails
# when the package is installed but the probe still says 0.
set -euo pipefail
probe=$1 package=$2 name=$3
if [[ "$(sh "$probe")" == 1 ]]; then
  echo "$name already installed"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "$package" >/dev/null
[[ "$(sh "$probe")" == 1 ]] || { echo "$package installed, but a $name program still does not link" >&2; exit 1; }
echo "installed $package ($(dpkg-query -W -f '${Version}' "$package"))"
