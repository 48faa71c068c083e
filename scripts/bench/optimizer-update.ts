// Optimizer update: the time of one update rule's apply over P floats on one thread (the
// coordinator's step runs it per slice, in as many threads as there are cores), every rule of
// src/coordinator/engine/optimizers/, median of the reps, in ms and in nanoseconds per value.
//   node --import tsx scripts/bench/optimizer-update.ts [--size 4] [--reps 9]   (size: millions)
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeUpdateRule } from '../../src/coordinator/engine/optimizers/index.ts';
import type { OptimizerConfig, OptimizerName } from '../../src/shared/config/types.ts';
import { validateConfig } from '../../src/shared/config/validate.ts';
import { median } from './run-mgpu.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: { size: { type: 'string', default: '4' }, reps: { type: 'string', default: '9' } } });
const P = Math.round(Number(values.size) * 1e6);
const REPS = Number(values.reps);
const WARM = 3;

const optimizer = (over: Record<string, unknown>): OptimizerConfig =>
  validateConfig(
    {
      model: { json: fileURLToPath(import.meta.url) },
      loss: 'meanSquaredError',
      data: { train: { type: 'mnist' } },
      training: { batchSize: 1 },
      optimizer: over,
    },
    { configPath: null, cwd: process.cwd() },
  ).optimizer;

const cases: Array<[string, Record<string, unknown> & { name: OptimizerName }]> = [
  ['sgd', { name: 'sgd' }],
  ['momentum', { name: 'momentum' }],
  ['momentum nesterov', { name: 'momentum', nesterov: true }],
  ['adam', { name: 'adam' }],
  ['adamw', { name: 'adamw' }],
  ['rmsprop', { name: 'rmsprop', momentum: 0.9 }],
  ['rmsprop centered', { name: 'rmsprop', momentum: 0.9, centered: true }],
  ['adagrad', { name: 'adagrad' }],
];

const w = new Float32Array(P);
const g = new Float32Array(P);
for (let i = 0; i < P; i++) {
  w[i] = Math.sin(i) * 0.5;
  g[i] = Math.cos(i * 1.3) * 1e-3;
}
const rows: Array<Record<string, string | number>> = [];
for (const [label, over] of cases) {
  const rule = makeUpdateRule(optimizer(over));
  const slots = rule.slotInit.map((v) => new Float32Array(P).fill(v));
  const times: number[] = [];
  for (let r = 0; r < REPS + WARM; r++) {
    const t0 = process.hrtime.bigint();
    rule.apply(w, g, slots, 0.001, r + 1);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r >= WARM) times.push(ms); // the first calls warm the JIT
  }
  const ms = median(times);
  rows.push({ optimizer: label, 'ms per apply': ms, 'ns per value': (ms * 1e6) / P });
}
printTable(`Optimizer update: one apply over ${(P / 1e6).toFixed(1)}M floats, one thread, median of ${REPS}`, rows);
console.log(`saved ${saveJson('optimizer-update', rows)}`);
