#!/usr/bin/env bash
# Installs Open MPI from Debian's packages (mpirun, and mpicc for the project's MPI binding), so
# the multi-machine tests run for real. Needs root (apt). Does nothing when mpicc is there.
set -euo pipefail
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
  echo "MPI already installed ($(mpirun --version 2>&1 | head -1))"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends openmpi-bin libopenmpi-dev >/dev/null
echo "installed $(mpirun --version 2>&1 | head -1)"
