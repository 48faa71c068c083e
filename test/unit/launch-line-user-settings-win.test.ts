// `mgpu-train launch` puts the settings a job needs in front of the user's mpirun arguments, and
// leaves out each one the user gives (on the line, or as OMPI_MCA_* in the environment): Open MPI
// refuses an MCA parameter given twice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { launchLine, splitLaunchArgs } from '../../src/cli/launch.ts';

const mcaValue = (line: string[], key: string) => {
  const at = line.findIndex((a, i) => a === '--mca' && line[i + 1] === key);
  return at < 0 ? undefined : line[at + 2];
};
const count = (line: string[], word: string) => line.filter((a) => a === word).length;

test('the defaults come first, then the user line, then node <bin> train ...', () => {
  const line = launchLine(['-H', 'a,b', '-np', '2'], ['train', 'exp.yaml'], {});
  assert.equal(mcaValue(line, 'oob_tcp_keepalive_time'), '10');
  assert.equal(mcaValue(line, 'orte_startup_timeout'), '60');
  assert.deepEqual(line.slice(line.indexOf('--map-by'), line.indexOf('--map-by') + 2), ['--map-by', 'ppr:1:node']);
  assert.ok(line.indexOf('--bind-to') < line.indexOf('-H'), 'defaults before the user arguments');
  assert.deepEqual(line.slice(-4), [process.execPath, line.at(-3)!, 'train', 'exp.yaml']);
  assert.match(line.at(-3)!, /bin\/mgpu-train\.mjs$/);
});

test("the user's own --mca, OMPI_MCA_* and mapping options win: ours are left out", () => {
  const user = ['--mca', 'oob_tcp_keepalive_time', '99', '-mca', 'orte_startup_timeout', '5', '--map-by', 'node', '--bind-to=core'];
  const line = launchLine(user, ['train', 'x.yaml'], { OMPI_MCA_oob_tcp_keepalive_probes: '7' });
  assert.equal(mcaValue(line, 'oob_tcp_keepalive_time'), '99');
  assert.equal(count(line, 'oob_tcp_keepalive_time'), 1);
  assert.equal(count(line, 'orte_startup_timeout'), 1);
  assert.equal(count(line, 'oob_tcp_keepalive_probes'), 0, 'set in the environment: not on the line');
  assert.equal(count(line, '--map-by'), 1);
  assert.equal(count(line, '--bind-to'), 0);
  assert.equal(mcaValue(line, 'oob_tcp_keepalive_intvl'), '5', 'the rest stay');
});

test('launch needs `--` and a train after it', () => {
  assert.throws(() => splitLaunchArgs(['-np', '2']), /E_USAGE|no `--`/);
  assert.throws(() => splitLaunchArgs(['-np', '2', '--']), /nothing after `--`/);
  assert.throws(() => splitLaunchArgs(['-np', '2', '--', 'eval', 'x.yaml']), /only train runs on several machines/);
  assert.deepEqual(splitLaunchArgs(['-np', '2', '--', 'train', 'x.yaml', '--', 'y']), { mpirun: ['-np', '2'], mgpu: ['train', 'x.yaml', '--', 'y'] });
});
