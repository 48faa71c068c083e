// Every value read from a CSV is bit for bit Math.fround(Number(text)) of its field's text: the
// reference is JavaScript's own correctly rounded conversion, whatever shortcut the reader takes.
// Seeded texts of every shape the number rules accept: short and long mantissas (past the 15
// digits a double holds exactly), leading zeros, fractions with and without digits before or
// after the point, exponents from far below float32's range to far above (values that round to
// zero, subnormals), signs, spaces or tabs around the number, and texts halfway between two
// float32 values.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';
import { mulberry32, type Rng } from '../../src/shared/rng.ts';

const digits = (rng: Rng, n: number) => Array.from({ length: n }, () => String(rng.below(10))).join('');

/** A number's text whose value fits float32 (a larger one is an error, tested elsewhere). */
function numberText(rng: Rng): string {
  for (;;) {
    const text = anyNumberText(rng);
    if (Number.isFinite(Math.fround(Number(text)))) return text;
  }
}

/**
 * The midpoint of two neighbouring float32 values, in 17 significant digits (which a double reads
 * back exactly): a double one unit off rounds to the other float32, so a conversion that is not
 * correctly rounded shows.
 */
function tieText(rng: Rng): string {
  const f = new Float32Array(2);
  const bits = new Uint32Array(f.buffer);
  bits[0] = (rng.below(0xfe) << 23) | rng.below(1 << 23);
  bits[1] = bits[0] + 1;
  return ((f[0]! + f[1]!) / 2).toPrecision(17);
}

function anyNumberText(rng: Rng): string {
  if (rng.below(4) === 0) return tieText(rng);
  const sign = ['', '', '-', '+'][rng.below(4)]!;
  const whole = digits(rng, rng.below(3) === 0 ? rng.below(25) : 1 + rng.below(8));
  const frac = rng.below(2) ? `.${digits(rng, rng.below(20))}` : '';
  const mantissa = whole === '' && (frac === '' || frac === '.') ? `${whole}${frac}7` : `${whole}${frac}`;
  const exp = rng.below(3) === 0 ? `${rng.below(2) ? 'e' : 'E'}${['', '-', '+'][rng.below(3)]}${rng.below(2) ? rng.below(25) : rng.below(60)}` : '';
  const pad = [' ', '\t', ''];
  return `${pad[rng.below(3)]}${sign}${mantissa}${exp}${pad[rng.below(3)]}`;
}

test('features and float labels equal Math.fround(Number(text)) bit for bit (seeded)', async () => {
  const rng = mulberry32(0x5eed);
  const cols = 8;
  const rows = 4000;
  const texts: string[][] = [];
  const lines = [[...Array.from({ length: cols }, (_, c) => `c${c}`), 'y'].join(',')];
  for (let r = 0; r < rows; r++) {
    const row = Array.from({ length: cols + 1 }, () => numberText(rng));
    texts.push(row);
    lines.push(row.map((t) => (rng.below(5) === 0 ? `"${t}"` : t)).join(','));
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-number-ref-'));
  try {
    const file = path.join(dir, 'numbers.csv');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const ds = await loadCsv({ type: 'csv', path: file, label: 'y', labelType: 'float' }, 'data.train');
    const x = ds.features.toArray().data as Float32Array;
    const y = ds.labels.toArray().data as Float32Array;
    let long = 0;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c <= cols; c++) {
        const text = texts[r]![c]!;
        const want = Math.fround(Number(text));
        const got = c < cols ? x[r * cols + c]! : y[r]!;
        assert.ok(Object.is(got, want), `row ${r + 2}, column ${c}: ${JSON.stringify(text)} read as ${got}, Number gives ${want}`);
        if (text.replace(/[^0-9]/g, '').replace(/^0+/, '').length > 15) long++;
      }
    }
    assert.ok(long > 1000, `only ${long} values with more than 15 significant digits`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
