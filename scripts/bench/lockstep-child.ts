// A plain tfjs process for the lock-step ceiling: on every 'go' it trains one step of its own
// (the same step as plain-tfjs.ts, on its own rows) and answers with the time it took. No
// gradients or weights are exchanged.
import { plainTrainer } from './plain-trainer.ts';

const [backend = 'wasm', rowsArg = '256', kernels = 'stock'] = process.argv.slice(2);
const rows = Number(rowsArg);
const step = await plainTrainer(backend, rows, rows * 8, kernels);
let k = 0;
// eslint-disable-next-line @typescript-eslint/no-misused-promises -- a rejection ends this bench child (Node's default), as the bench wants
process.on('message', async () => {
  const t0 = performance.now();
  await step(k++ * rows);
  process.send!(performance.now() - t0);
});
process.send!(0);
