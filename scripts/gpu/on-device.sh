#!/usr/bin/env bash
# Everything a machine with a GPU has to measure, in two phases that each end inside ten minutes
# (every step has its own time limit, and a step that runs out leaves what it printed):
#   gpu  what runs where, `check:gpu` (parity, reruns, throughput, k workers sharing the GPU,
#        transfers, the 20M-parameter step), the examples' times on the GPU beside wasm, and
#        `mgpu-train benchmark` (resnet50, mobilenet-v2; 1-8 workers sharing the GPU, plain tfjs-webgpu);
#   cpu  the many-core tables: weak and strong scaling with workers pinned to cores and with
#        MGPU_PIN_CORES=0 (the spread of the workers' compute times), and the scaling benchmark.
# Each step's output goes to its own file in <outdir> (at most 8 files a phase), and a line per
# step with its exit status and seconds to <outdir>/steps.txt.
#   bash scripts/gpu/on-device.sh gpu|cpu <outdir> [--allow-software]
# --allow-software rehearses the gpu phase on a software adapter (lavapipe), quick and small:
# figures from it are a CPU's.
set -uo pipefail
phase=${1:?usage: on-device.sh gpu|cpu <outdir> [--allow-software]}
out=${2:?usage: on-device.sh gpu|cpu <outdir> [--allow-software]}
soft=${3:-}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
work=$(mktemp -d /tmp/mgpu-on-device-XXXXXX)
trap 'rm -rf "$work"' EXIT
cli=(node bin/mgpu-train.mjs)
tsx=(node --import tsx)

# step <file> <seconds> <command...>: runs it with a time limit, output to <outdir>/<file>.
step() {
  local file=$1 limit=$2 t0 rc
  shift 2
  t0=$(date +%s)
  { echo "\$ $*"; timeout --kill-after=10 "$limit" "$@"; } >>"$out/$file" 2>&1
  rc=$?
  echo "$(printf '%-10s' "$file") rc=$rc $(($(date +%s) - t0))s  $*" | tee -a "$out/steps.txt"
}

case $phase in
  gpu)
    step machine.txt 30 nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,memory.total --format=csv
    step machine.txt 10 nproc
    step machine.txt 30 "${cli[@]}" devices
    if [ "$soft" = --allow-software ]; then
      step check-gpu.txt 540 "${tsx[@]}" scripts/gpu/check-gpu.ts --allow-software --quick
      gpu=(--backend webgpu --set devices.allowSoftwareAdapter=true --set data.train.count=1280 --set data.eval.count=200)
    else
      step check-gpu.txt 330 "${tsx[@]}" scripts/gpu/check-gpu.ts
      gpu=(--backend webgpu)
    fi
    # The examples as shipped (mnist-mlp: its 4 epochs; mnist-cnn: one epoch of its 6), on the GPU
    # with 1 and 4 workers, and on wasm with 2 simulated GPUs as the examples' comments time them.
    epoch=(--set training.epochs=1 --set schedule.decaySteps=141)
    step examples.txt 90 "${cli[@]}" train examples/mnist-mlp/experiment.yaml "${gpu[@]}" --run-dir "$work/mlp-gpu"
    step examples.txt 90 "${cli[@]}" train examples/mnist-cnn/experiment.yaml "${gpu[@]}" "${epoch[@]}" --run-dir "$work/cnn-gpu1"
    step examples.txt 90 "${cli[@]}" train examples/mnist-cnn/experiment.yaml "${gpu[@]}" "${epoch[@]}" --set devices.workersPerGpu=4 --run-dir "$work/cnn-gpu4"
    [ "$soft" = --allow-software ] || step examples.txt 120 "${cli[@]}" train examples/mnist-cnn/experiment.yaml --simulate 2 --backend wasm "${epoch[@]}" --run-dir "$work/cnn-wasm"
    # mgpu-train benchmark: resnet50 and mobilenet-v2 by name on synthetic rows, 1, 2, 4 and 8
    # workers sharing the GPU, plain tfjs-webgpu beside them (the command runs it first).
    # One text file for the two (a phase writes at most 8 files), a JSON each.
    if [ "$soft" = --allow-software ]; then
      bench=(--backend webgpu --set devices.allowSoftwareAdapter=true --workers 1,2 --batch 8 --steps 5 --warmup 2)
    else
      bench=(--backend webgpu --workers 1,2,4,8 --batch 64 --steps 30 --warmup 5)
    fi
    for net in resnet50 mobilenet-v2; do
      step bench.txt 240 "${cli[@]}" benchmark "$net" "${bench[@]}" --profile --json "$out/bench-$net.json"
    done
    ;;
  cpu)
    counts=1,2,4,8,15
    step weak-strong-pinned.txt 170 "${tsx[@]}" scripts/bench/weak-strong.ts --workers "$counts" --steps 20
    step weak-strong-unpinned.txt 170 env MGPU_PIN_CORES=0 "${tsx[@]}" scripts/bench/weak-strong.ts --workers "$counts" --steps 20
    step scaling.txt 200 "${tsx[@]}" scripts/bench/scaling.ts --workers "$counts" --rounds 1 --kernels mgpu --steps 20
    ;;
  *)
    echo "on-device.sh: phase must be gpu or cpu, not '$phase'" >&2
    exit 2
    ;;
esac
