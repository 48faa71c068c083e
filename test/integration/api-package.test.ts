// mgpu-train as another project's dependency: `npm pack`, the tarball installed into a fresh
// project (offline: see test/helpers/packed-package.ts), and there a plain Node ESM script (no
// loader configured) trains with the API, on a model module and a data module written in
// TypeScript, then evaluates and predicts; and a TypeScript consumer type-checks against the
// shipped declarations (with the repo's typescript).
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { install, pack } from '../helpers/packed-package.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const MODEL_TS = `// A model module in TypeScript: the workers load it through the tsx loader the package registers.
import fs from 'node:fs';
import type * as TF from '@tensorflow/tfjs';

interface Context { rank: number; seed: number }

export default function build(tf: typeof TF, ctx: Context): TF.LayersModel {
  fs.appendFileSync(new URL('./builds.log', import.meta.url), \`rank \${ctx.rank}\\n\`);
  const hidden: number = 7;
  return tf.sequential({ layers: [
    tf.layers.dense({ inputShape: [6], units: hidden, activation: 'tanh' }),
    tf.layers.dense({ units: 3, activation: 'softmax' }),
  ] });
}
`;

const SAMPLES_TS = `// A data module in TypeScript: the coordinator -- the consumer's own process -- loads it.
type Sample = { x: number[]; y: number };

export default async function* samples(): AsyncGenerator<Sample> {
  for (let i = 0; i < 48; i++) {
    const y: number = i % 3;
    yield { x: [0, 1, 2, 3, 4, 5].map((j) => Math.sin(i * 7 + j) + (j % 3 === y ? 1 : 0)), y };
  }
}
`;

const CONFIG = `{
  name: 'consumer', model: { module: './model.ts' }, loss: 'sparseCategoricalCrossentropy',
  data: { train: { type: 'module', module: './samples.ts' }, evalFraction: 0.25 },
  training: { batchSize: 12, epochs: 2, seed: 1 }, optimizer: { name: 'adam', learningRate: 0.02 },
  devices: { simulate: 2, backend: 'cpu' }, checkpoint: { every: 2 },
}`;

const SCRIPT_MJS = `import { train, evaluate, predict, MgpuError } from 'mgpu-train';

const config = ${CONFIG};
const calls = { steps: 0, epochs: [], evals: [], checkpoints: [] };
const r = await train(config, {
  print: false,
  onStepEnd: () => void calls.steps++,
  onEpochEnd: (f) => void calls.epochs.push(f.epoch),
  onEvalEnd: (f) => void calls.evals.push(f.step),
  onCheckpoint: (c) => void calls.checkpoints.push(c.step),
});
const e = await evaluate(config, { checkpoint: r.runDir, print: false });
const p = await predict(config, { checkpoint: r.modelPath.replace(/model\\.json$/, ''), input: { data: new Float32Array(12).fill(0.5), shape: [2, 6] }, print: false });
let configError = null;
try {
  await train({ ...config, optimizer: { name: 'adam', learningRate: -1 } }, { print: false });
} catch (err) {
  configError = { isMgpuError: err instanceof MgpuError, code: err.code, keyPath: err.keyPath, message: err.message };
}
console.log('RESULT ' + JSON.stringify({
  runDir: r.runDir, modelPath: r.modelPath, steps: r.steps, weights: r.weights.length, eval: r.eval, evaluated: e, stopped: r.stopped, calls,
  predicted: { shape: p.shape, rowSums: [0, 1].map((i) => p.values[3 * i] + p.values[3 * i + 1] + p.values[3 * i + 2]) },
  configError,
}));
`;

const CONSUMER_TS = `import { train, evaluate, predict, loadConfig, validateConfig, MgpuError, type ConfigInput, type StepFigures, type TrainResult } from 'mgpu-train';

const raw: ConfigInput = ${CONFIG};
const cfg = validateConfig(raw, { set: ['training.epochs=3'] });
const controller = new AbortController();
const r: TrainResult = await train(cfg, {
  signal: controller.signal,
  onStepEnd(f: StepFigures, run) {
    if (f.loss < 0.01) return 'stop';
    if (f.step > 100) run.stop('long enough');
  },
  onCheckpoint: async (c) => { console.log(c.path, c.step); },
});
const fromFile = await loadConfig('experiment.yaml', { set: ['devices.simulate=2'] });
const e = await evaluate(fromFile, { checkpoint: r.runDir });
const p = await predict(cfg, { checkpoint: r.runDir, input: { data: new Float32Array(6), shape: [1, 6] } });
const reason: string | undefined = r.stopped?.reason;
console.log(e.accuracy, p.values.length, reason, new MgpuError('E_USAGE', 'x').code);
// Every output by name; the inputs of a model with several, by name too.
const byName: { values: Float32Array; shape: number[] } | undefined = p.outputs['dense'];
const named: Parameters<typeof predict>[1]['input'] = { image: 'x_image.npy', meta: { data: new Float32Array(3), shape: [1, 3] } };
console.log(byName?.shape, named);
// The declarations are real, not any:
// @ts-expect-error: a misspelt option
await train(cfg, { onStepend() {} });
// @ts-expect-error: a callback returns 'stop' or nothing
await train(cfg, { onEvalEnd: () => 42 });
// @ts-expect-error: an unknown loss
validateConfig({ ...raw, loss: 'hinge' });
`;

test('npm pack, installed into another project: a plain .mjs script trains, evaluates and predicts with .ts modules, and a .ts consumer type-checks', async (t) => {
  const dir = tempDir('api-package');
  const { tarball, files } = pack(dir);
  for (const f of ['lib/index.mjs', 'types/api.d.ts', 'types/coordinator/run/callbacks.d.ts', 'src/api.ts', 'bin/mgpu-train.mjs'])
    assert.ok(files.includes(f), `${f} is not in the package`);
  assert.ok(!files.some((f) => f.startsWith('test/')), 'the tests are in the package');

  const project = path.join(dir, 'consumer');
  fs.mkdirSync(project);
  const how = install(project, tarball, 'module', (s) => t.diagnostic(s));
  t.diagnostic(`installed by ${how}`);
  fs.writeFileSync(path.join(project, 'model.ts'), MODEL_TS);
  fs.writeFileSync(path.join(project, 'samples.ts'), SAMPLES_TS);
  fs.writeFileSync(path.join(project, 'train.mjs'), SCRIPT_MJS);

  // Plain node: no --import, no loader in the environment.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const { stdout } = await run(process.execPath, ['train.mjs'], { cwd: project, env, timeout: 180_000 });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, stdout);
  const got = JSON.parse(line.slice('RESULT '.length));
  const runDir = fs.realpathSync(path.join(project, 'runs', 'consumer'));
  assert.equal(got.runDir, runDir);
  assert.equal(got.modelPath, path.join(runDir, 'final', 'model.json'));
  assert.ok(fs.existsSync(got.modelPath));
  // 36 training samples (48 less the held-out quarter), batch 12: 3 steps an epoch, 2 epochs.
  assert.equal(got.steps, 6);
  assert.equal(got.weights, 6 * 7 + 7 + 7 * 3 + 3, 'not the model of model.ts');
  assert.equal(got.stopped, null);
  assert.equal(got.eval.samples, 12);
  // With an eval set the run evaluates after every epoch (3 steps each) by default.
  assert.deepEqual(got.calls, { steps: 6, epochs: [0, 1], evals: [3, 6], checkpoints: [2, 4, 6] });
  // evaluate() of the run's newest checkpoint: the final weights, so the final evaluation's figures.
  assert.equal(got.evaluated.samples, 12);
  assert.ok(Math.abs(got.evaluated.loss - got.eval.loss) < 1e-6, `evaluate() loss ${got.evaluated.loss}, the run's final eval ${got.eval.loss}`);
  assert.equal(got.evaluated.accuracy, got.eval.accuracy);
  assert.deepEqual(
    fs.readFileSync(path.join(project, 'builds.log'), 'utf8').split('\n').filter(Boolean).sort(),
    ['rank 0', 'rank 0', 'rank 0', 'rank 1', 'rank 1', 'rank 1'],
    'each of the 2 workers of train, evaluate and predict built the .ts model',
  );
  assert.deepEqual(got.predicted.shape, [2, 3]);
  for (const s of got.predicted.rowSums) assert.ok(Math.abs(s - 1) < 1e-5, `a softmax row sums to ${s}`);
  assert.deepEqual(got.configError, {
    isMgpuError: true,
    code: 'E_CONFIG',
    keyPath: 'optimizer.learningRate',
    message: 'optimizer.learningRate: expected a finite number > 0, got -1 (number)',
  });

  // The declarations, as a strict consumer's tsc reads them: through exports.types, library files checked too.
  fs.writeFileSync(path.join(project, 'consumer.ts'), CONSUMER_TS);
  const tsconfig = (extra: object) =>
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, ...extra },
      files: ['consumer.ts'],
    });
  fs.writeFileSync(path.join(project, 'tsconfig.json'), tsconfig({}));
  const tsc = (p: string) => spawnSync(process.execPath, [TSC, '-p', p], { cwd: project, encoding: 'utf8' });
  const checked = tsc('tsconfig.json');
  assert.equal(checked.status, 0, `tsc failed on the consumer:\n${checked.stdout}${checked.stderr}`);
  // Nor do they need @types/node: a consumer without it (nor the DOM lib) checks a plain call.
  fs.writeFileSync(
    path.join(project, 'bare.ts'),
    `import { train, type ConfigInput } from 'mgpu-train';\nconst raw: ConfigInput = ${CONFIG};\nexport const r = await train(raw, { onStepEnd: (f) => (f.loss < 0.01 ? 'stop' : undefined) });\n`,
  );
  fs.writeFileSync(path.join(project, 'tsconfig.bare.json'), tsconfig({ lib: ['ES2022'], types: [] }).replace('"consumer.ts"', '"bare.ts"'));
  const bare = tsc('tsconfig.bare.json');
  assert.equal(bare.status, 0, `tsc failed on a consumer without @types/node:\n${bare.stdout}${bare.stderr}`);
});
