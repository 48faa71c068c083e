import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv, parseCsv } from '../../src/data/csv.ts';
import type { Dataset } from '../../src/data/dataset.ts';
import type { HeldDataset } from '../../src/data/rows.ts';
import { DataError } from '../../src/shared/errors.ts';
import { mulberry32, type Rng } from '../../src/shared/rng.ts';

const SRC = { type: 'csv', path: 'fuzz.csv', label: 'label', labelType: 'index' } as const;
const FLOAT = { ...SRC, labelType: 'float' } as const;
type Src = typeof SRC | typeof FLOAT;

type Outcome = { ok: Dataset } | { error: string };

/** Parses `bytes` cut into random chunks: a self-consistent Dataset or a DataError, nothing else. */
async function run(bytes: Uint8Array, src: Src, rng: Rng, what: string): Promise<Outcome> {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const len = 1 + rng.below(Math.min(bytes.length - at, rng.below(2) ? 4 : 64));
    chunks.push(bytes.subarray(at, at + len));
    at += len;
  }
  if (rng.below(4) === 0) chunks.splice(rng.below(chunks.length + 1), 0, new Uint8Array(0));
  let ds: HeldDataset;
  try {
    ds = await parseCsv(chunks, src, 'data.train');
  } catch (err) {
    if (err instanceof DataError && err.code === 'E_DATA' && err.message.startsWith('data.train: fuzz.csv ')) return { error: err.message };
    assert.fail(`${what}: threw ${err instanceof Error ? err.stack : String(err)}\ninput: ${JSON.stringify(Buffer.from(bytes).toString('latin1'))}`);
  }
  const { features: f, labels: l, count } = ds;
  assert.ok(Number.isInteger(count) && count >= 1, `${what}: count ${count}`);
  assert.equal(f.dtype, 'float32');
  assert.ok(f.data instanceof Float32Array);
  assert.equal(f.shape.length, 2);
  assert.equal(f.shape[0], count);
  assert.ok(f.shape[1]! >= 1);
  assert.equal(f.data.length, count * f.shape[1]!);
  assert.ok(f.data.every(Number.isFinite), `${what}: finite features`);
  if (src.labelType === 'index') {
    assert.ok(l.dtype === 'int32' && l.data instanceof Int32Array);
    assert.deepEqual(l.shape, [count]);
    assert.ok(
      l.data.every((v) => v >= 0),
      `${what}: class indices`,
    );
  } else {
    assert.ok(l.dtype === 'float32' && l.data instanceof Float32Array);
    assert.deepEqual(l.shape, [count, 1]);
    assert.ok(l.data.every(Number.isFinite));
  }
  return { ok: ds };
}

/** The outcome must not depend on where the chunks are cut. */
function same(a: Outcome, b: Outcome, what: string): void {
  if ('error' in a || 'error' in b) {
    assert.deepEqual(a, b, what);
    return;
  }
  assert.deepEqual(a.ok.features.toArray(), b.ok.features.toArray(), what);
  assert.deepEqual(a.ok.labels.toArray(), b.ok.labels.toArray(), what);
}

const NUMBERS = ['0', '1', '-2', '3.5', '.25', '1e3', '-4.5E-2', '007', '+8', ' 9 ', '12345.678'];

function validTable(rng: Rng): { text: string; rows: number[][]; labels: number[]; cols: number } {
  const cols = 1 + rng.below(4);
  const labelAt = rng.below(cols + 1);
  const nl = ['\n', '\r\n', '\r'][rng.below(3)]!;
  const names = Array.from({ length: cols }, (_, i) => (rng.below(3) ? `f${i}` : `"f,${i}\n"`));
  names.splice(labelAt, 0, rng.below(2) ? 'label' : '"label"');
  const lines = [(rng.below(4) ? '' : '\ufeff') + names.join(',')];
  const rows: number[][] = [];
  const labels: number[] = [];
  for (let r = 1 + rng.below(6); r > 0; r--) {
    const texts = Array.from({ length: cols }, () => NUMBERS[rng.below(NUMBERS.length)]!);
    rows.push(texts.map((t) => Math.fround(Number(t))));
    const label = rng.below(5);
    labels.push(label);
    const fields = texts.map((t) => (rng.below(4) ? t : `"${t}"`));
    fields.splice(labelAt, 0, String(label));
    lines.push(fields.join(','));
    if (rng.below(8) === 0) lines.push('');
  }
  return { text: lines.join(nl) + (rng.below(2) ? nl : ''), rows, labels, cols };
}

const enc = (s: string) => new TextEncoder().encode(s);

test('valid tables parse to their values however the bytes are chunked (seeded)', async () => {
  const rng = mulberry32(0xc5f0);
  for (let i = 0; i < 600; i++) {
    const t = validTable(rng);
    const bytes = enc(t.text);
    const a = await run(bytes, SRC, rng, `table #${i}`);
    assert.ok('ok' in a, `table #${i}: ${JSON.stringify(t.text)} -> ${'error' in a ? a.error : ''}`);
    assert.deepEqual([...a.ok.features.toArray().data], t.rows.flat(), `table #${i}: ${JSON.stringify(t.text)}`);
    assert.deepEqual([...a.ok.labels.toArray().data], t.labels);
    assert.deepEqual(a.ok.features.shape, [t.rows.length, t.cols]);
    same(a, await run(bytes, SRC, rng, `table #${i} again`), `table #${i} rechunked`);
  }
});

test('truncated tables give a prefix of the rows or a DataError (seeded)', async () => {
  const rng = mulberry32(0x7a11);
  const counts = { ok: 0, error: 0 };
  for (let i = 0; i < 1500; i++) {
    const t = validTable(rng);
    const bytes = enc(t.text);
    const cut = bytes.subarray(0, rng.below(bytes.length));
    const a = await run(cut, SRC, rng, `truncation #${i}`);
    same(a, await run(cut, SRC, rng, `truncation #${i} again`), `truncation #${i} rechunked`);
    if ('error' in a) {
      counts.error++;
      continue;
    }
    counts.ok++;
    const n = a.ok.count;
    assert.ok(n <= t.rows.length);
    // every row but the last, which may have lost digits, is the original
    assert.deepEqual([...a.ok.features.toArray().data.subarray(0, (n - 1) * t.cols)], t.rows.slice(0, n - 1).flat(), `truncation #${i}`);
    assert.deepEqual([...a.ok.labels.toArray().data.subarray(0, n - 1)], t.labels.slice(0, n - 1));
  }
  assert.ok(counts.ok > 150 && counts.error > 300, JSON.stringify(counts));
});

test('random text from CSV-ish bytes never throws anything but a DataError (seeded)', async () => {
  const rng = mulberry32(0xf022);
  const alphabet = ['0', '1', '9', '.', 'e', '-', '+', ',', ',', ',', '"', '"', '\n', '\n', '\r', ' ', 'x', 'label', 'label,', '\ufeff', '\u00e9', '\u0000'];
  const counts = { ok: 0, error: 0 };
  for (let i = 0; i < 3000; i++) {
    let text = rng.below(2) ? 'label,a\n' : '';
    for (let k = rng.below(60); k > 0; k--) text += alphabet[rng.below(alphabet.length)]!;
    const bytes = enc(text);
    for (const src of [SRC, FLOAT]) {
      const a = await run(bytes, src, rng, `random #${i}`);
      same(a, await run(bytes, src, rng, `random #${i} again`), `random #${i} rechunked`);
      counts['ok' in a ? 'ok' : 'error']++;
    }
  }
  // random bytes also flip single bits of valid files
  for (let i = 0; i < 2000; i++) {
    const bytes = enc(validTable(rng).text);
    bytes[rng.below(bytes.length)]! ^= 1 << rng.below(8);
    const a = await run(bytes, SRC, rng, `bit flip #${i}`);
    same(a, await run(bytes, SRC, rng, `bit flip #${i} again`), `bit flip #${i} rechunked`);
    counts['ok' in a ? 'ok' : 'error']++;
  }
  assert.ok(counts.ok > 100 && counts.error > 1000, JSON.stringify(counts));
});

test('loadCsv from a file agrees with parseCsv', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-fuzz-'));
  try {
    const rng = mulberry32(0xf11e);
    for (let i = 0; i < 20; i++) {
      const t = validTable(rng);
      const file = path.join(dir, `t${i}.csv`);
      fs.writeFileSync(file, t.text);
      const fromFile = await loadCsv({ ...SRC, path: file }, 'data.train');
      const inMemory = await parseCsv([enc(t.text)], SRC, 'data.train');
      assert.deepEqual(fromFile.features.toArray(), inMemory.features.toArray());
      assert.deepEqual(fromFile.labels.toArray(), inMemory.labels.toArray());
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
