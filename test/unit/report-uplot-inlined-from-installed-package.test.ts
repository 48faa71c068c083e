// report.html inlines uPlot's script and stylesheet as installed (found through Node's module
// resolution, as from an installed mgpu-train), with its banner naming the version and licence
// but no URL: the page holds no address at all, and fetches nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { uplotAssets } from '../../src/report/uplot-assets.ts';
import { renderHtml } from '../../src/report/html.ts';
import { parseMetrics, type RunData } from '../../src/report/read-run.ts';
import { summarize } from '../../src/report/summary.ts';

const pkg = path.dirname(createRequire(import.meta.url).resolve('uplot/package.json'));
const installed = (file: string) => fs.readFileSync(path.join(pkg, 'dist', file), 'utf8');

test("the page carries uPlot's minified script and CSS as installed, its banner without the URL", () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version: string };
  const assets = uplotAssets();
  assert.equal(assets.version, version);
  const body = installed('uPlot.iife.min.js').replace(/^\/\*![^*]*\*\/\s*/, '');
  assert.ok(body.startsWith('var uPlot='), 'the banner is all that is taken off');
  assert.equal(assets.script, `/*! uPlot ${version}, MIT licence, (c) Leon Sorokin: github.com/leeoniya/uPlot */\n${body}`);
  assert.equal(assets.css, installed('uPlot.min.css'));
  const parsed = parseMetrics(
    JSON.stringify({
      type: 'train',
      step: 1,
      epoch: 0,
      loss: 1,
      lr: 0.1,
      samples_per_sec: 1,
      compute_max_ms: 1,
      compute_min_ms: 1,
      sync_ms: 0,
      data_ms: 0,
      step_ms: 1,
      grad_norm: 1,
    }) + '\n',
  );
  const run = {
    ...parsed,
    runDir: '/r',
    name: 'r',
    configText: null,
    config: null,
    trainerState: null,
    checkpoints: [],
    finalModel: null,
    finalEmaModel: null,
  } as unknown as RunData;
  const page = renderHtml(run, summarize(run));
  assert.ok(page.includes(`<script>${assets.script}</script>`), 'uPlot inline in a script of its own');
  assert.ok(page.includes(`<style>${assets.css}</style>`), "uPlot's stylesheet inline");
  assert.doesNotMatch(page, /https?:/);
});
