// Ctrl-C while a data module is still being read (an endless generator under a bound too large
// to reach soon, or one that awaits forever) stops the run at once: exit 130, a line saying the
// data was loading, and no worker started.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { sleep, startCli, waitFor, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('sigint-while-data-loads');
const model = writeModelModule(dir, 'mlp');
// Each writes <module>.started when it is first read (the test waits for it before the SIGINT).
const started = "import fs from 'node:fs'; const started = () => fs.writeFileSync(new URL(import.meta.url).pathname + '.started', '');\n";
const modules = {
  // sync: never gives the event loop a turn by itself
  'an endless sync generator': `${started}export default function* () { started(); for (let i = 0; ; i++) yield { x: [1, 2, 3, 4, 5, 6], y: [1, 0, 0] }; }\n`,
  'a generator that awaits forever': `${started}export default async function* () { started(); yield { x: [1, 2, 3, 4, 5, 6], y: [1, 0, 0] }; await new Promise(() => setInterval(() => {}, 1000)); }\n`,
};

for (const [what, code] of Object.entries(modules)) {
  test(`SIGINT while ${what} is read: exit 130 before the data ends, no worker started`, async (t) => {
    const name = what.replace(/\W+/g, '-');
    const module = path.join(dir, `${name}.mjs`);
    fs.writeFileSync(module, code);
    const file = writeConfigFile(dir, name, {
      model: { module: model },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'module', module, maxSamples: 1_000_000_000 } },
      training: { batchSize: 4, steps: 2 },
      optimizer: { name: 'sgd' },
    });
    const cli = startCli(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', path.join(dir, 'runs', name)]);
    await waitFor(() => fs.existsSync(`${module}.started`), 60_000, 'the module to be read');
    await sleep(500); // well into the reading
    const t0 = Date.now();
    process.kill(cli.child.pid!, 'SIGINT');
    // A net for a run that goes on reading (the data never ends): it is then killed, and fails the exit code.
    const timer = setTimeout(() => cli.child.kill('SIGKILL'), 120_000);
    const r = await cli.done;
    clearTimeout(timer);
    const secs = (Date.now() - t0) / 1000;
    t.diagnostic(`exit ${r.code} (signal ${r.signal}) ${secs.toFixed(2)} s after SIGINT`);
    assert.equal(r.code, 130, `exit ${r.code} (signal ${r.signal}) ${secs} s after SIGINT\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /stopped by SIGINT while loading the data, before any step; no worker had started\n/);
    assert.match(r.stdout, /SIGINT: stopping the start-up; no worker has started yet\n/);
    assert.doesNotMatch(r.stdout + r.stderr, /\[rank \d\]|workers that started/, 'a worker started');
    assert.equal(r.stderr, '');
  });
}
