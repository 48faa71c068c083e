// Benchmarks the gradient kernels of src/worker/wasm-kernels on the wasm backend against the
// pure-JS cpu backend, on the shapes of a MNIST-sized CNN (examples/mnist-cnn) at batch 64, and
// one whole training step of that model (forward + backward, tf.variableGrads).
//
//   node --import tsx scripts/bench-wasm-conv.ts [--batch 64] [--reps 5] [--cpu-reps 1] [--no-cpu]
//
// Times are medians, in ms, of single-threaded runs (wasm SIMD, no threads in Node). The cpu
// backend's conv filter gradient is a naive JS loop and takes seconds per call: it runs
// --cpu-reps times (default 1), after one warm-up only for the cheap rows. Rows marked "wasm's
// own" are kernels tfjs-backend-wasm has, shown for where a training step's time goes.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../src/worker/wasm-kernels/index.ts';

tf.env().set('PROD', true);

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
const B = arg('batch', 64);
const REPS = arg('reps', 5);
const CPU_REPS = arg('cpu-reps', 1);
const NO_CPU = process.argv.includes('--no-cpu');

type Shape4 = [number, number, number, number];

interface Row {
  what: string;
  shape: string;
  /** Builds the tensors on the current backend and returns the thing to time. */
  setup: () => () => tf.Tensor | tf.Tensor[];
  /** Cheap enough on cpu to warm up and repeat. */
  cheapOnCpu?: boolean;
  /** Times wasm's own Conv2DBackpropInput instead of ours (registered with the replacement off). */
  wasmOwnDx?: boolean;
}

let seed = 1;
function rand(shape: number[]): tf.Tensor {
  return tf.randomNormal(shape, 0, 1, 'float32', seed++);
}

function convRows(name: string, x: Shape4, f: Shape4): Row[] {
  const dyShape = [x[0], x[1] - f[0] + 1, x[2] - f[1] + 1, f[3]];
  return [
    {
      what: `${name} dW  Conv2DBackpropFilter (ours)`,
      shape: `x [${x}] -> W [${f}]`,
      setup: () => {
        const xt = rand(x);
        const dy = rand(dyShape);
        return () => tf.engine().runKernel<tf.Tensor>('Conv2DBackpropFilter', { x: xt, dy }, { strides: 1, pad: 'valid', dataFormat: 'NHWC', filterShape: f });
      },
    },
    ...[false, true].map((wasmOwnDx): Row => ({
      what: `${name} dx  Conv2DBackpropInput (${wasmOwnDx ? "wasm's own" : 'ours'})`,
      shape: `dy [${dyShape}] -> x [${x}]`,
      setup: () => {
        const w = rand(f);
        const dy = rand(dyShape);
        return () =>
          tf.engine().runKernel<tf.Tensor>('Conv2DBackpropInput', { dy, filter: w }, { strides: 1, pad: 'valid', dataFormat: 'NHWC', inputShape: x });
      },
      cheapOnCpu: true,
      wasmOwnDx,
    })),
  ];
}

function poolRow(x: Shape4): Row {
  return {
    what: 'pool fwd+dx  MaxPool + MaxPoolGrad (ours)',
    shape: `x [${x}], 2x2 / 2`,
    setup: () => {
      const xt = rand(x);
      return () => tf.grad((t: tf.Tensor) => tf.sum(tf.maxPool(t as tf.Tensor4D, 2, 2, 'valid')))(xt);
    },
    cheapOnCpu: true,
  };
}

function depthwiseRows(x: Shape4, f: Shape4): Row[] {
  const dyShape = [x[0], x[1], x[2], f[2] * f[3]];
  const attrs = { strides: 1, pad: 'same', dilations: 1 };
  return [
    {
      what: 'dw dW    DepthwiseConv2dNativeBackpropFilter (ours)',
      shape: `x [${x}] -> W [${f}]`,
      setup: () => {
        const xt = rand(x);
        const dy = rand(dyShape);
        return () => tf.engine().runKernel<tf.Tensor>('DepthwiseConv2dNativeBackpropFilter', { x: xt, dy }, { ...attrs, filterShape: f });
      },
      cheapOnCpu: true,
    },
    {
      what: 'dw dx    DepthwiseConv2dNativeBackpropInput (ours)',
      shape: `dy [${dyShape}] -> x [${x}]`,
      setup: () => {
        const w = rand(f);
        const dy = rand(dyShape);
        return () => tf.engine().runKernel<tf.Tensor>('DepthwiseConv2dNativeBackpropInput', { dy, filter: w }, { ...attrs, inputShape: x });
      },
      cheapOnCpu: true,
    },
  ];
}

/** The examples/mnist-cnn model, built fresh on the current backend with fixed weights. */
function stepRow(wasmOwnDx = false): Row {
  return {
    what: `training step: forward + backward, all variables${wasmOwnDx ? " (wasm's own dx)" : ''}`,
    wasmOwnDx,
    shape: `MNIST CNN, batch ${B}`,
    setup: () => {
      const model = tf.sequential({
        layers: [
          tf.layers.conv2d({
            inputShape: [28, 28, 1],
            filters: 16,
            kernelSize: 3,
            activation: 'relu',
            kernelInitializer: tf.initializers.glorotUniform({ seed: 1 }),
          }),
          tf.layers.maxPooling2d({ poolSize: 2 }),
          tf.layers.conv2d({ filters: 32, kernelSize: 3, activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({ seed: 2 }) }),
          tf.layers.maxPooling2d({ poolSize: 2 }),
          tf.layers.flatten(),
          tf.layers.dense({ units: 64, activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({ seed: 3 }) }),
          tf.layers.dense({ units: 10, activation: 'softmax', kernelInitializer: tf.initializers.glorotUniform({ seed: 4 }) }),
        ],
      });
      const x = tf.randomUniform([B, 28, 28, 1], 0, 1, 'float32', 5);
      const y = tf.oneHot(tf.randomUniform<tf.Rank.R1>([B], 0, 10, 'int32', 6), 10);
      const vars = model.trainableWeights.map((w) => (w as unknown as { val: tf.Variable }).val);
      return () => {
        const { value, grads } = tf.variableGrads(
          () => tf.mean<tf.Scalar>(tf.metrics.categoricalCrossentropy(y, model.apply(x, { training: true }) as tf.Tensor)),
          vars,
        );
        return [value, ...Object.values(grads)];
      };
    },
  };
}

const ROWS: Row[] = [
  ...convRows('conv1', [B, 28, 28, 1], [3, 3, 1, 16]),
  ...convRows('conv2', [B, 13, 13, 16], [3, 3, 16, 32]),
  poolRow([B, 26, 26, 16]),
  ...depthwiseRows([B, 28, 28, 16], [3, 3, 16, 1]),
  stepRow(),
  stepRow(true),
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function time(backend: 'cpu' | 'wasm', row: Row): Promise<number> {
  await tf.setBackend(backend);
  const cheap = backend === 'wasm' || row.cheapOnCpu;
  const reps = backend === 'wasm' ? REPS : cheap ? Math.max(CPU_REPS, 3) : CPU_REPS;
  const swap = backend === 'wasm' && row.wasmOwnDx;
  if (swap) {
    unregisterWasmGradKernels(tf);
    registerWasmGradKernels(tf, { replaceConv2DBackpropInput: false });
  }
  tf.engine().startScope();
  try {
    const run = row.setup();
    const once = () => {
      const out = run();
      const outs = Array.isArray(out) ? out : [out];
      outs.forEach((t) => t.dataSync());
      tf.dispose(outs);
    };
    if (cheap) once(); // warm-up (JIT, XNNPACK operator caches)
    const times: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      once();
      times.push(performance.now() - t0);
    }
    return median(times);
  } finally {
    tf.engine().endScope();
    if (swap) {
      unregisterWasmGradKernels(tf);
      registerWasmGradKernels(tf);
    }
  }
}

await tf.setBackend('wasm');
const reg = registerWasmGradKernels(tf);
console.log(`tfjs ${tf.version.tfjs}, wasm backend + mgpu kernels (added ${reg.added.join(', ')}; replaced ${reg.replaced.join(', ')})`);
console.log(`node ${process.version}, batch ${B}, median of ${REPS} (wasm) / ${CPU_REPS}+ (cpu) runs, ms\n`);

const header = ['gradient', 'shapes', 'cpu ms', 'wasm ms', 'speed-up'];
const lines: string[][] = [];
for (const row of ROWS) {
  const wasm = await time('wasm', row);
  const cpu = NO_CPU ? NaN : await time('cpu', row);
  lines.push([row.what, row.shape, NO_CPU ? '-' : cpu.toFixed(1), wasm.toFixed(1), NO_CPU ? '-' : `${(cpu / wasm).toFixed(1)}x`]);
  process.stderr.write('.');
}
process.stderr.write('\n');
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
const fmt = (cells: string[]) => `| ${cells.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
console.log(fmt(header));
console.log(`|${widths.map((w, i) => (i >= 2 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
for (const l of lines) console.log(fmt(l));
