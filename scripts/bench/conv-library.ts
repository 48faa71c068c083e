// The convolution addon's two libraries side by side, layer by layer: oneDNN (where the addon
// has it) and the addon's own im2col + GEMM kernels, on resnet18-cifar's convolutions at its
// input size (32x32): the forward, the input gradient and the filter gradient of each distinct
// layer, in one process on one core, alternating (oneDNN, own) so that a machine's drift hits
// both. The table gives the best of --runs for each, in milliseconds and GFLOP/s (2 x the
// multiply-adds), and the step's total (each layer times its count in the network; the stem's
// input gradient is not computed in training and is left out of the totals). Also the
// stride-2 3x3 layers with 'same' padding at an even size (top 0, bottom 1, as tfjs pads them)
// beside the symmetric padding the network by name uses.
//
//   node --import tsx scripts/bench/conv-library.ts [--batch 32] [--runs 5]
import { parseArgs } from 'node:util';
import { convGeometry, nativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: { batch: { type: 'string', default: '32' }, runs: { type: 'string', default: '5' } } });
const B = Number(values.batch);
const RUNS = Math.max(1, Number(values.runs));
const { addon, reason } = nativeConv();
if (!addon) throw new Error(`the convolution addon is not in use: ${reason}`);
const onednn = addon.onednnVersion();
if (!onednn) throw new Error('the convolution addon was built without oneDNN: install it (scripts/ci/install-onednn.sh) and npm run build:native');

/** resnet18-cifar's distinct convolutions: input side, channels in and out, kernel, stride, padding before and after, count in the network. */
const LAYERS: [number, number, number, number, number, number, number, number][] = [
  [32, 3, 64, 3, 1, 1, 1, 1],
  [32, 64, 64, 3, 1, 1, 1, 4],
  [32, 64, 128, 3, 2, 1, 1, 1],
  [32, 64, 128, 3, 2, 0, 1, 0], // tfjs 'same' at stride 2 (a user's module); not counted in the totals
  [32, 64, 128, 1, 2, 0, 0, 1],
  [16, 128, 128, 3, 1, 1, 1, 3],
  [16, 128, 256, 3, 2, 1, 1, 1],
  [16, 128, 256, 1, 2, 0, 0, 1],
  [8, 256, 256, 3, 1, 1, 1, 3],
  [8, 256, 512, 3, 2, 1, 1, 1],
  [8, 256, 512, 1, 2, 0, 0, 1],
  [4, 512, 512, 3, 1, 1, 1, 3],
];

const filled = (n: number) => Float32Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
/** The best of RUNS calls of `f` for each library, alternating, after one warm-up call each. */
function best(f: () => void): { onednn: number; own: number } {
  const t = { onednn: Infinity, own: Infinity };
  for (let r = 0; r <= RUNS; r++) {
    for (const lib of ['onednn', 'own'] as const) {
      addon!.useOnednn(lib === 'onednn');
      const start = performance.now();
      f();
      if (r > 0) t[lib] = Math.min(t[lib], performance.now() - start);
    }
  }
  return t;
}

const rows: Array<Record<string, string | number>> = [];
const totals = { onednn: 0, own: 0 };
for (const [H, C, CO, K, S, before, after, count] of LAYERS) {
  const OH = Math.floor((H + before + after - K) / S) + 1;
  const geom = convGeometry({
    batchSize: B,
    inHeight: H,
    inWidth: H,
    inChannels: C,
    outHeight: OH,
    outWidth: OH,
    outChannels: CO,
    filterHeight: K,
    filterWidth: K,
    strideHeight: S,
    strideWidth: S,
    padInfo: { top: before, left: before },
  } as Parameters<typeof convGeometry>[0]);
  const x = filled(B * H * H * C),
    w = filled(K * K * C * CO),
    y = filled(B * OH * OH * CO),
    dx = new Float32Array(x.length),
    dw = new Float32Array(w.length);
  const gflop = (2 * B * OH * OH * CO * C * K * K) / 1e9;
  const ops = {
    forward: best(() => addon.conv2d(x, w, null, y, geom, 0)),
    'input gradient': best(() => addon.backpropInput(y, w, dx, geom)),
    'filter gradient': best(() => addon.backpropFilter(x, y, dw, geom)),
  };
  for (const [op, t] of Object.entries(ops)) {
    const counted = op === 'input gradient' && C === 3 ? 0 : count;
    totals.onednn += t.onednn * counted;
    totals.own += t.own * counted;
    rows.push({
      layer: `${H}x${H} ${C}->${CO} ${K}x${K} /${S} pad ${before},${after}${count ? ` x${count}` : ''}`,
      op,
      'oneDNN ms': t.onednn,
      'oneDNN GFLOP/s': gflop / (t.onednn / 1e3),
      'own ms': t.own,
      'own GFLOP/s': gflop / (t.own / 1e3),
      'own / oneDNN': t.own / t.onednn,
    });
  }
}
addon.useOnednn(true);
printTable(`resnet18-cifar's convolutions at batch ${B}, one core: ${onednn} against the own kernels (${addon.isa()} micro-kernel); best of ${RUNS}`, rows);
console.log(
  `\na training step's convolutions: ${onednn} ${totals.onednn.toFixed(0)} ms, own ${totals.own.toFixed(0)} ms (own / oneDNN ${(totals.own / totals.onednn).toFixed(2)})`,
);
console.log(`saved ${saveJson('conv-library', { batch: B, runs: RUNS, onednn, isa: addon.isa(), rows, totals })}`);
