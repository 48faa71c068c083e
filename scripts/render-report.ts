// Renders a report.html to a PNG in headless Chromium, to look at a report without a desktop
// (or to attach one to an issue).
//
//   node --import tsx scripts/render-report.ts <run dir | report.html> [out.png] [--width 1280] [--height 2400]
//
// A run directory without report.html gets one first (as `mgpu-train report` writes it).
// Chromium: `apt-get install -y chromium` (Debian/Ubuntu), or CHROMIUM=/path/to/chrome.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { report } from '../src/report/index.ts';

function usage(message: string): never {
  console.error(`render-report: ${message}`);
  console.error('usage: node --import tsx scripts/render-report.ts <run dir | report.html> [out.png] [--width 1280] [--height 2400]');
  process.exit(2);
}

function findChromium(): string | null {
  const fromEnv = process.env.CHROMIUM;
  if (fromEnv) return fs.existsSync(fromEnv) ? fromEnv : null;
  const names = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const n of names) {
      const p = path.join(dir, n);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        return p;
      } catch {
        // not here
      }
    }
  }
  return null;
}

const args = process.argv.slice(2);
const positional: string[] = [];
const opts = { width: 1280, height: 2400 };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const m = /^--(width|height)(?:=(.*))?$/.exec(a!);
  if (m) {
    const v = Number(m[2] ?? args[++i]);
    if (!Number.isInteger(v) || v < 200 || v > 20000) usage(`--${m[1]} wants a number of pixels, got ${m[2] ?? args[i]}`);
    opts[m[1] as 'width' | 'height'] = v;
  } else if (a!.startsWith('--')) {
    usage(`unknown option ${a}`);
  } else {
    positional.push(a!);
  }
}
if (positional.length < 1 || positional.length > 2) usage('name a run directory or a report.html');

let html = path.resolve(positional[0]!);
if (!fs.existsSync(html)) usage(`${positional[0]} does not exist`);
if (fs.statSync(html).isDirectory()) {
  const runDir = html;
  html = path.join(runDir, 'report.html');
  if (!fs.existsSync(html)) await report(runDir, { line: () => {} });
}
const out = path.resolve(positional[1] ?? html.replace(/\.html?$/i, '') + '.png');

const chromium = findChromium();
if (!chromium && process.env.CHROMIUM) {
  console.error(`render-report: CHROMIUM=${process.env.CHROMIUM} does not exist; unset it to look for chromium on PATH.`);
  process.exit(2);
}
if (!chromium) {
  console.error('render-report: chromium is not installed (none of chromium, chromium-browser, google-chrome on PATH).');
  console.error('  install it: apt-get install -y chromium   (Debian/Ubuntu; as root)');
  console.error('  or point CHROMIUM at a Chrome/Chromium binary.');
  process.exit(2);
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-render-'));
try {
  fs.rmSync(out, { force: true });
  const r = spawnSync(
    chromium,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${profile}`,
      `--screenshot=${out}`,
      `--window-size=${opts.width},${opts.height}`,
      pathToFileURL(html).href,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (r.error || !fs.existsSync(out)) {
    console.error(`render-report: ${chromium} did not write ${out}${r.error ? `: ${r.error.message}` : ` (exit ${r.status ?? r.signal})`}`);
    const tail = (r.stderr as string | null) ?? ''; // null when the browser did not start.trim().split('\n').slice(-10).join('\n');
    if (tail) console.error(tail);
    process.exit(1);
  }
  console.log(`${out} (${opts.width}x${opts.height}, from ${html})`);
} finally {
  fs.rmSync(profile, { recursive: true, force: true });
}
