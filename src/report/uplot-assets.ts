// uPlot's minified script and stylesheet, read from the installed package to be inlined into
// report.html (the page fetches nothing). Found through Node's own resolution from this file, so
// it works from src/ under tsx, from the compiled dist/ and from an installed package, wherever
// npm put node_modules/uplot. Read once per process (the watch mode renders every second).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { MgpuError } from '../shared/errors.ts';

export interface UplotAssets {
  version: string;
  script: string;
  css: string;
}

let cached: UplotAssets | null = null;

/** The package's own banner names its repository by URL; the page keeps its name, version and licence. */
function banner(version: string): string {
  return `/*! uPlot ${version}, MIT licence, (c) Leon Sorokin: github.com/leeoniya/uPlot */`;
}

function readAsset(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new MgpuError('E_IO', `cannot read ${file}, uPlot's ${path.basename(file)} that report.html inlines: ${(e as Error).message}`, {
      hint: 'reinstall mgpu-train (npm ci): its dependency uplot is missing or incomplete',
    });
  }
}

export function uplotAssets(): UplotAssets {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  let pkgFile: string;
  try {
    pkgFile = require.resolve('uplot/package.json');
  } catch (e) {
    throw new MgpuError('E_IO', `the package uplot, which draws report.html's charts, cannot be found from ${import.meta.url}: ${(e as Error).message}`, {
      hint: 'reinstall mgpu-train (npm ci): uplot is one of its dependencies',
    });
  }
  const dir = path.join(path.dirname(pkgFile), 'dist');
  const version = (JSON.parse(readAsset(pkgFile)) as { version?: string }).version ?? 'unknown';
  const script = readAsset(path.join(dir, 'uPlot.iife.min.js')).replace(/^\/\*![^*]*\*\/\s*/, '');
  cached = { version, script: `${banner(version)}\n${script}`, css: readAsset(path.join(dir, 'uPlot.min.css')) };
  return cached;
}
