#!/usr/bin/env bash
# Groups src/coordinator/ into folders that say what they hold (#18 item 4), and gives the input
# pipeline its own home, src/data/. Each folder imports only those below it:
#   coordinator/train.ts, inference.ts   the commands: train; eval and predict (stay on top)
#   coordinator/run/        a run's set-up and bookkeeping: run dir and lock, checkpoints and
#                           trainer-state.json, resume, metrics.jsonl and TensorBoard, what watches
#                           the evaluations, the library API's callbacks, worker-failure recovery
#   coordinator/engine/     the passes over the workers: session, worker group, slab staging, the
#                           step's reduce and optimizers, evaluate and predict
#   coordinator/metrics/    the eval metrics (stays)
#   coordinator/devices/    what the workers compute on: GPUs, backends, capacity, the machines
#   coordinator/console/    what a person sees and does: progress, a closed output, Ctrl-C
#   src/data/               datasets and splits, their formats, which rows each step takes
# It first points every import (and every path written out) in src/, test/, scripts/,
# examples/, lib/ and bin/ at the new places (scripts/rewrite-import-paths.ts), then moves the
# files with git mv. Run it from a clean work tree; a file of src/coordinator/ that the map
# below does not place stops it before anything changes. Afterwards: npx tsc --noEmit -p ., the
# tests, and the docs' mentions of the old paths that it lists at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

MAP=$(mktemp)
trap 'rm -f "$MAP"' EXIT
cat >"$MAP" <<'EOF'
src/coordinator/data/ src/data/
src/coordinator/batch-plan.ts src/data/batch-plan.ts
src/coordinator/split-rows-agree.ts src/data/split-rows-agree.ts

src/coordinator/session.ts src/coordinator/engine/session.ts
src/coordinator/worker-group.ts src/coordinator/engine/worker-group.ts
src/coordinator/layout-agreement.ts src/coordinator/engine/layout-agreement.ts
src/coordinator/model-io.ts src/coordinator/engine/model-io.ts
src/coordinator/row-format.ts src/coordinator/engine/row-format.ts
src/coordinator/stager.ts src/coordinator/engine/stager.ts
src/coordinator/stage-ahead.ts src/coordinator/engine/stage-ahead.ts
src/coordinator/step-deadline.ts src/coordinator/engine/step-deadline.ts
src/coordinator/schedules.ts src/coordinator/engine/schedules.ts
src/coordinator/evaluate.ts src/coordinator/engine/evaluate.ts
src/coordinator/eval-result.ts src/coordinator/engine/eval-result.ts
src/coordinator/reduce/ src/coordinator/engine/reduce/
src/coordinator/optimizers/ src/coordinator/engine/optimizers/

src/coordinator/devices.ts src/coordinator/devices/devices.ts
src/coordinator/device-plan.ts src/coordinator/devices/device-plan.ts
src/coordinator/capacity.ts src/coordinator/devices/capacity.ts
src/coordinator/webgpu-probe.ts src/coordinator/devices/webgpu-probe.ts
src/coordinator/adapter-agreement.ts src/coordinator/devices/adapter-agreement.ts
src/coordinator/cluster.ts src/coordinator/devices/cluster.ts

src/coordinator/run-dir.ts src/coordinator/run/run-dir.ts
src/coordinator/run-lock.ts src/coordinator/run/run-lock.ts
src/coordinator/writable.ts src/coordinator/run/writable.ts
src/coordinator/train-checks.ts src/coordinator/run/train-checks.ts
src/coordinator/run-header.ts src/coordinator/run/run-header.ts
src/coordinator/recovery.ts src/coordinator/run/recovery.ts
src/coordinator/checkpoint.ts src/coordinator/run/checkpoint.ts
src/coordinator/checkpoint-integrity.ts src/coordinator/run/checkpoint-integrity.ts
src/coordinator/trainer-state.ts src/coordinator/run/trainer-state.ts
src/coordinator/resume.ts src/coordinator/run/resume.ts
src/coordinator/metrics-log.ts src/coordinator/run/metrics-log.ts
src/coordinator/tensorboard.ts src/coordinator/run/tensorboard.ts
src/coordinator/monitors.ts src/coordinator/run/monitors.ts
src/coordinator/eval-watch.ts src/coordinator/run/eval-watch.ts
src/coordinator/callbacks.ts src/coordinator/run/callbacks.ts
src/coordinator/run-hooks.ts src/coordinator/run/run-hooks.ts
src/coordinator/model-load-hint.ts src/coordinator/run/model-load-hint.ts

src/coordinator/progress.ts src/coordinator/console/progress.ts
src/coordinator/closed-output.ts src/coordinator/console/closed-output.ts
src/coordinator/signals.ts src/coordinator/console/signals.ts
EOF
# The two commands stay on top, and the eval metrics where they are (engine/, run/ and both use them).
STAYS='src/coordinator/train.ts src/coordinator/train-setup.ts src/coordinator/train-step.ts src/coordinator/train-intervals.ts src/coordinator/train-figures.ts src/coordinator/train-end.ts src/coordinator/train-result.ts src/coordinator/inference.ts src/coordinator/metrics'

fail() {
  echo "regroup-coordinator: $1" >&2
  exit 2
}

[ -z "$(git status --porcelain)" ] || fail 'the work tree has changes: commit or stash them first (the moves must not mix with them)'
pairs=$(grep -v '^$' "$MAP")
while read -r from to; do
  [ -e "$from" ] || fail "$from (in the map) does not exist: the map is older than the tree"
  [ ! -e "$to" ] || fail "$to already exists: it would be overwritten by $from"
done <<<"$pairs"
for f in src/coordinator/*; do
  [[ " $STAYS " == *" $f "* ]] && continue
  grep -q "^$f/\? " <<<"$pairs" || fail "$f is not in the map: add it (old new) to scripts/regroup-coordinator.sh"
done

node --import tsx scripts/rewrite-import-paths.ts "$MAP"
while read -r from to; do
  mkdir -p "$(dirname "${to%/}")"
  git mv "${from%/}" "${to%/}"
done <<<"$pairs"
echo "moved $(wc -l <<<"$pairs") files and folders"
# A longer path can push an import past the line width.
mapfile -t changed < <(git ls-files -m)
[ ${#changed[@]} -eq 0 ] || npx prettier --write --log-level warn "${changed[@]}"

olds=$(cut -d' ' -f1 <<<"$pairs" | sed 's/\.ts$//; s/\/$//' | paste -sd'|')
echo 'the docs still name these old paths:'
grep -rnE "($olds)\b" README.md docs/ || echo '  (none)'
