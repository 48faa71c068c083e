#!/usr/bin/env bash
# Builds the MPI binding (native/mpi) where an MPI compiler wrapper is found; elsewhere says why
# and succeeds, so `npm install` works on machines without MPI. `--require` (CI) fails instead.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v mpicc >/dev/null 2>&1; then
  echo "mgpu-train: no mpicc on PATH: the MPI binding is not built (multi-machine training needs Open MPI or MPICH: apt-get install libopenmpi-dev)"
  [ "${1:-}" = "--require" ] && exit 1
  exit 0
fi
# node-gyp: the one npm puts on PATH for its scripts (run this through npm run build:mpi).
if ! node-gyp rebuild --directory native/mpi; then
  echo "mgpu-train: the MPI binding failed to build (npm run build:mpi to retry)"
  [ "${1:-}" = "--require" ] && exit 1
fi
exit 0
