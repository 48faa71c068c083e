// The benchmark's report as JSON: written whole (NaN as null), the baseline's figures or why it
// was not timed, the machine it ran on; and the data facts read before anything is measured.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { machine, plainReport, writeReport, type BenchmarkReport } from '../../src/benchmark/report.ts';
import { trainFacts } from '../../src/benchmark/plain-classes.ts';
import type { Config } from '../../src/config/types.ts';
import type { PlainFigures } from '../../src/benchmark/plain-baseline.ts';

test('the baseline: its figures with skipped null, or why not with no rate', () => {
  const figures = { imagesPerSec: 5, batch: 2 } as unknown as PlainFigures;
  assert.deepEqual(plainReport({ figures, skipped: null }), { imagesPerSec: 5, batch: 2, skipped: null });
  assert.deepEqual(plainReport({ figures: null, skipped: 'two inputs' }), { imagesPerSec: null, skipped: 'two inputs' });
});

test('the machine: its cores, memory, node and GPUs', () => {
  const m = machine(3);
  assert.equal(m.cpus, os.cpus().length);
  assert.equal(m.gpus, 3);
  assert.equal(m.node, process.version);
  assert.equal(m.memGiB, Math.round(os.totalmem() / 1024 ** 3));
  assert.equal(m.loadAverage.length, 3);
  assert.equal(m.cpu, os.cpus()[0]?.model ?? null);
});

test('the JSON: written whole, partial and interrupted kept, NaN as null', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-'));
  try {
    const file = path.join(dir, 'out.json');
    const r = { steps: 3, partial: true, interrupted: 'SIGINT', results: [{ workers: 1, imagesPerSec: NaN }] } as unknown as BenchmarkReport;
    writeReport(file, r);
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text.endsWith('}\n'));
    assert.deepEqual(JSON.parse(text), { steps: 3, partial: true, interrupted: 'SIGINT', results: [{ workers: 1, imagesPerSec: null }] });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('synthetic rows name their samples and classes without being read', async () => {
  const cfg = { data: { train: { type: 'synthetic', shape: [6], count: 17, classes: 4, labels: 'onehot' } }, model: { net: null } } as unknown as Config;
  assert.deepEqual(await trainFacts(cfg), { rows: 17, classes: 4 });
});
