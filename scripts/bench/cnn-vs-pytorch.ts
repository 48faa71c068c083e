// Convolutional networks against PyTorch on the same CPU, in one run and interleaved: for each
// network, PyTorch on one process, mgpu-train on 1 worker, PyTorch DDP (gloo) on 2 processes,
// mgpu-train on 2 workers, each at the same global batch (split evenly over the processes, as
// both split it), momentum SGD, synthetic rows, one thread per process. mgpu-train's figures are
// `mgpu-train benchmark`'s (its own plain-tfjs baseline beside them); PyTorch's come from
// torch-cnn.ts (Debian's python3-torch and torchvision, never a dependency of the project).
// `resnet18-module` is the same ResNet-18 written by a user as a model module with tfjs's own
// layers (user-resnet18/model.ts), timed with `benchmark --config`, against the same PyTorch.
//
//   node --import tsx scripts/bench/cnn-vs-pytorch.ts [--nets resnet18-cifar,resnet18-module,mobilenet-v2]
//        [--batch 64] [--steps 3] [--warmup 1] [--backend wasm]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { printTable, saveJson } from './table.ts';
import { haveTorch, torchCnnRate, type TorchRate } from './torch-cnn.ts';

const { values } = parseArgs({
  options: {
    nets: { type: 'string', default: 'resnet18-cifar,resnet18-module,mobilenet-v2' },
    batch: { type: 'string', default: '64' },
    steps: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    backend: { type: 'string', default: 'wasm' },
  },
});
const NETS = values.nets.split(',');
const BATCH = Number(values.batch);
const STEPS = Number(values.steps);
const WARMUP = Number(values.warmup);
// The input side of each network here: CIFAR's 32 for the CIFAR ResNet, 96 for MobileNetV2 (its
// standard 224 takes minutes a step on 2 cores).
const SIDE: Record<string, number> = { 'resnet18-cifar': 32, 'resnet18-module': 32, 'mobilenet-v2': 96 };
// A model module's config in place of a network by name, and the torchvision network it is written after.
const MODULES: Record<string, { config: string; torch: string }> = {
  'resnet18-module': { config: fileURLToPath(new URL('user-resnet18/experiment.yaml', import.meta.url)), torch: 'resnet18-cifar' },
};
const CLI = fileURLToPath(new URL('../../bin/mgpu-train.mjs', import.meta.url));

interface MgpuRate {
  imagesPerSec: number;
  plain: number | null;
}

/**
 * `mgpu-train benchmark <net>` on `workers` simulated workers at a global batch of BATCH; null
 * when it fails (e.g. a batch whose activations pass the wasm heap's 4 GB), said on the console,
 * so that the other rows are still measured and printed.
 */
function mgpuRate(net: string, side: number, workers: number): MgpuRate | null {
  const json = path.join(os.tmpdir(), `mgpu-cnn-${process.pid}-${workers}.json`);
  const module = MODULES[net];
  const args = [CLI, 'benchmark', ...(module ? ['--config', module.config] : [net]), '--workers', String(workers), '--batch', String(BATCH / workers)];
  args.push('--steps', String(STEPS), '--warmup', String(WARMUP), '--backend', values.backend, '--simulate', '--progress', 'plain', '--json', json);
  if (!module) args.push('--set', `model.inputShape=[${side},${side},3]`, '--set', 'model.classes=10');
  try {
    execFileSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    const r = JSON.parse(fs.readFileSync(json, 'utf8')) as { results: { imagesPerSec: number }[]; plain: { imagesPerSec: number | null } };
    return { imagesPerSec: r.results[0]!.imagesPerSec, plain: r.plain.imagesPerSec };
  } catch {
    console.log(`mgpu-train on ${workers} worker(s) failed for ${net} at a global batch of ${BATCH} (its message is above): that row has no mgpu-train figure`);
    return null;
  } finally {
    fs.rmSync(json, { force: true });
  }
}

const ratio = (a: number, b: number | null | undefined) => (b ? (a / b).toFixed(2) : '-');

/** One line of the table: `processes` of PyTorch and of mgpu-train; `one`: the 1-process figures its scaling is against. */
function row(net: string, processes: number, torch: TorchRate | null, mgpu: MgpuRate | null, one: { torch: TorchRate | null; mgpu: MgpuRate | null } | null) {
  return {
    net,
    processes,
    'PyTorch images/s': torch?.imagesPerSec ?? '-',
    'mgpu-train images/s': mgpu?.imagesPerSec ?? '-',
    'mgpu / PyTorch': mgpu ? ratio(mgpu.imagesPerSec, torch?.imagesPerSec) : '-',
    'plain tfjs images/s': mgpu?.plain ?? '-',
    'PyTorch x of 1': one ? (torch && one.torch ? ratio(torch.imagesPerSec, one.torch.imagesPerSec) : '-') : '',
    'mgpu-train x of 1': one ? (mgpu && one.mgpu ? ratio(mgpu.imagesPerSec, one.mgpu.imagesPerSec) : '-') : '',
  };
}

if (!haveTorch()) console.log('(PyTorch could not be had: its rows are left out)');
const rows: Record<string, string | number>[] = [];
for (const net of NETS) {
  const side = SIDE[net] ?? 32;
  console.log(`\n${net} at ${side}x${side}x3, global batch ${BATCH}, ${STEPS} steps after ${WARMUP} warm-up`);
  const torchNet = MODULES[net]?.torch ?? net;
  const torch1 = torchCnnRate(torchNet, side, BATCH, 1, STEPS, WARMUP);
  const mgpu1 = mgpuRate(net, side, 1);
  const ddp2 = torchCnnRate(torchNet, side, BATCH, 2, STEPS, WARMUP);
  const mgpu2 = mgpuRate(net, side, 2);
  rows.push(row(net, 1, torch1, mgpu1, null), row(net, 2, ddp2, mgpu2, { torch: torch1, mgpu: mgpu1 }));
}
printTable(
  `Convolutional networks, images/s at a global batch of ${BATCH} (PyTorch: one process, then DDP over gloo; mgpu-train: ${values.backend} workers; plain tfjs at one worker's batch)`,
  rows,
);
console.log(`saved ${saveJson('cnn-vs-pytorch', { batch: BATCH, steps: STEPS, warmup: WARMUP, backend: values.backend, rows })}`);
