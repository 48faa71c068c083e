#!/usr/bin/env bash
# mpirun's rsh agent for scripts/two-machines.sh (what ssh would be): drops the options it is
# given, then runs the command line on the named machine, in that machine's namespaces.
#   mpirun --mca plm_rsh_agent scripts/two-machines-rsh.sh -H node-a,node-b ...
set -euo pipefail
while [[ ${1:-} == -* ]]; do shift; done
host=${1:?two-machines-rsh: no host given}
shift
exec "$(dirname "$0")/two-machines.sh" run "$host" bash -c "$*"
