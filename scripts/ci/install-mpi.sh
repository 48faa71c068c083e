#!/usr/bin/env bash
# Installs Open MPI from Debian's packages (mpirun, and mpicc for the project's MPI binding), so
# the multi-machine tests run for real, and iproute2 (ip, tc) and python3 (its lossy cable) for
# the two-machine tests on network namespaces (scripts/two-machines.sh). Needs root (apt). Does
# nothing when all are there.
set -euo pipefail
need=()
command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin libopenmpi-dev)
command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 || need+=(iproute2)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [[ ${#need[@]} -eq 0 ]]; then
  echo "MPI already installed ($(mpirun --version 2>&1 | head -1)); ip, tc and python3 there"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "installed ${need[*]} ($(mpirun --version 2>&1 | head -1))"
