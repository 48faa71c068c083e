// mgpu-train's command line: parse, load + validate the experiment config, run the command.
// Exit codes: 0 done, 2 usage / config / input errors, 1 a failure during the run.
import path from 'node:path';
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { closest } from '../config/checker.ts';
import { loadConfig } from '../config/load.ts';
import { BACKEND_NAMES } from '../config/types.ts';
import { formatError, MgpuError } from '../shared/errors.ts';
import { autoTakesCuda, autoTakesWebgpu, machineProbes } from '../coordinator/devices/device-plan.ts';
import { discoverGpus } from '../coordinator/devices/devices.ts';
import { probeAdapters } from '../coordinator/devices/webgpu-probe.ts';
import { adapterLabel } from '../shared/adapters.ts';
import { runEval, runPredict } from '../coordinator/inference.ts';
import { makeProgress, PROGRESS_STYLES, progressStyle, type ProgressStyle } from '../coordinator/console/progress.ts';
import { report, watchReport } from '../report/index.ts';
import { exitCodeFor, STOP_SIGNALS, watchSignals } from '../coordinator/console/signals.ts';
import { keepGoingWhenOutputCloses } from '../coordinator/console/closed-output.ts';
import { resumeConfig } from '../coordinator/run/resume.ts';
import { train } from '../coordinator/train.ts';
import { openCluster, type Cluster } from '../coordinator/devices/cluster.ts';
import { launchedSize } from '../shared/mpi.ts';
import { flagOverrides } from './flag-overrides.ts';
import { COMMANDS, usageError } from './command-usage.ts';
import { helpWidth, knownFlags } from './yargs-info.ts';
import { helpExamples } from './help-examples.ts';
import { launch as launchJob } from './launch.ts';
import { listNetworks } from './nets-command.ts';
import { benchmarkCommand } from './benchmark-command.ts';
import { shardsCommand } from './shards-command.ts';

/** A first word that is no command (`trian`) is named, with the command it is closest to. */
function checkCommand(word: string | undefined): void {
  if (word === undefined || word.startsWith('-') || COMMANDS.includes(word)) return;
  const near = closest(word, COMMANDS);
  throw new MgpuError('E_USAGE', `unknown command ${JSON.stringify(word)}${near ? `: did you mean ${near}?` : ''}`, {
    hint: `the commands are ${COMMANDS.join(', ')}; mgpu-train --help`,
  });
}

/** The flags every command that starts workers takes. */
function withDevices<T>(y: Argv<T>) {
  return (
    y
      .positional('config', { type: 'string', describe: 'experiment file (YAML or JSON)', demandOption: true })
      .option('gpus', { type: 'string', describe: 'GPU ids to use, e.g. 0,1 (default: all visible)' })
      // A string, so that `--simulate abc` and a bare `--simulate` can be told apart and named.
      .option('simulate', { type: 'string', describe: 'run N simulated GPUs on the CPU' })
      .option('oversubscribe', { type: 'boolean', describe: 'start more simulated GPUs than the machine holds (4 per core, ~256 MiB each)' })
      .option('backend', { type: 'string', choices: BACKEND_NAMES, describe: 'tfjs backend of the workers' })
      .option('set', { type: 'string', array: true, describe: 'override a config key: --set training.batchSize=256' })
      .option('progress', {
        type: 'string',
        choices: PROGRESS_STYLES,
        describe: 'a live bar or plain lines (default: the bar on a terminal, unless under mpirun/srun/Slurm)',
      })
  );
}

/** The progress on stdout, in the style --progress asks for (or the default one). */
function consoleProgress(every: number, asked: string | undefined) {
  return makeProgress(every, process.stdout, process.stderr, progressStyle(asked as ProgressStyle | undefined, process.stdout));
}

/** `mgpu-train train`: its flags, and the run. */
function trainCommand<T>(y: Argv<T>) {
  return y.command(
    'train <config>',
    'train the model an experiment config describes',
    (y) =>
      withDevices(y)
        .option('run-dir', { type: 'string', describe: 'where metrics and the model go (default runs/<name>)' })
        .option('resume', {
          type: 'string',
          describe: "continue from the newest checkpoint of the run (or of the directory given), with the run's own config",
        })
        .option('overwrite', {
          type: 'boolean',
          describe: "a new run into a run directory that holds another run: remove that run's files first (kept otherwise: the run is refused)",
        })
        .option('allow-changed', {
          type: 'string',
          array: true,
          describe:
            'on --resume, accept a --set that changes what the checkpoint fixes (e.g. optimizer.learningRate), or data files changed since it (e.g. data.train)',
        }),
    async (argv) => {
      const sets = [...(argv.set ?? []), ...flagOverrides(argv)];
      const fileCfg = await loadConfig(argv.config, sets);
      const allowChanged = argv.allowChanged ?? [];
      if (allowChanged.length > 0 && argv.resume === undefined) {
        throw new MgpuError('E_USAGE', '--allow-changed applies to --resume only', {
          hint: 'a new run takes any config; drop --allow-changed, or add --resume',
        });
      }
      if (argv.overwrite && argv.resume !== undefined) {
        throw new MgpuError('E_USAGE', '--overwrite and --resume exclude each other: --resume continues the run in the directory, --overwrite replaces it', {
          hint: 'drop one of them',
        });
      }
      if (checkOnly) return;
      // On --resume the run goes on with its own config (saved in the checkpoint), these --set on top.
      const resumed = argv.resume === undefined ? null : resumeConfig(argv.resume === '' ? fileCfg.runDir : path.resolve(argv.resume), fileCfg, sets);
      const cfg = resumed?.config ?? fileCfg;
      // Under mpirun/srun with several processes, this coordinator is one machine of several:
      // rank 0 speaks for the run, the others print only their errors.
      cluster = openCluster(cfg.reliability);
      const progress = cluster.rank === 0 ? consoleProgress(cfg.log.every, argv.progress) : quietProgress;
      if (resumed?.notApplied) progress.line(resumed.notApplied);
      const signals = watchSignals((text, lasting) => progress.line(text, lasting));
      let interrupted: NodeJS.Signals | null = null;
      try {
        interrupted = (await train(cfg, progress, { resume: resumed?.checkpoint ?? null, allowChanged, signals, cluster, overwrite: argv.overwrite }))
          .interrupted;
      } finally {
        signals.dispose();
      }
      cluster.close();
      // Stopped by a signal: a data module's pending reads or timers must not keep the process alive.
      if (interrupted) process.exit(exitCodeFor(interrupted));
    },
  );
}

/** `mgpu-train eval`: a checkpoint evaluated on the eval data. */
function evalCommand<T>(y: Argv<T>) {
  return y.command(
    'eval <config>',
    'evaluate a checkpoint or model on the eval data, sharded over the workers',
    (y) =>
      withDevices(y)
        .option('checkpoint', { type: 'string', demandOption: true, describe: 'a checkpoint, a run directory (its newest checkpoint) or a model directory' })
        .option('ema', { type: 'boolean', default: false, describe: "use the checkpoint's EMA weights" }),
    async (argv) => {
      const cfg = await loadConfig(argv.config, [...(argv.set ?? []), ...flagOverrides(argv)]);
      await runEval(cfg, consoleProgress(1, argv.progress), { dir: path.resolve(argv.checkpoint), ema: argv.ema });
    },
  );
}

/** `mgpu-train predict`: the model's outputs for rows of images, shards or .npy files. */
function predictCommand<T>(y: Argv<T>) {
  return y.command(
    'predict <config>',
    "write the model's outputs for images (files, folders), a TFRecord or WebDataset shard, or .npy files (one per model input), in input order",
    (y) =>
      withDevices(y)
        .option('checkpoint', { type: 'string', demandOption: true, describe: 'a checkpoint, a run directory or a model directory' })
        .option('ema', { type: 'boolean', default: false, describe: "use the checkpoint's EMA weights" })
        // One value per --input (nargs 1), repeated for a model with several inputs.
        .option('input', {
          type: 'string',
          array: true,
          nargs: 1,
          demandOption: true,
          describe:
            "image files or folders, one TFRecord or WebDataset .tar shard (decoded as the config's image source decodes), or .npy with one row per sample (for a model with several inputs, name=file.npy once per input); told by what the file holds",
        })
        .option('output', {
          type: 'string',
          demandOption: true,
          describe:
            "where the predictions go: .npy (float32 outputs of a model with one), .csv (each row's class name and score; needs the model's labels.json), or a directory (one <output name>.npy per output)",
        }),
    async (argv) => {
      const cfg = await loadConfig(argv.config, [...(argv.set ?? []), ...flagOverrides(argv)]);
      await runPredict(cfg, consoleProgress(1, argv.progress), { dir: path.resolve(argv.checkpoint), ema: argv.ema }, argv.input, path.resolve(argv.output));
    },
  );
}

/** `mgpu-train report`: a run summarized, once or (--watch) until it ends. */
function reportCommand<T>(y: Argv<T>) {
  return y.command(
    'report <run>',
    'summarize a run: a table here, and <run>/report.html with its charts (opens offline)',
    (y) =>
      y.positional('run', { type: 'string', describe: 'a run directory: runs/<name>, or the --run-dir of the run', demandOption: true }).option('watch', {
        type: 'boolean',
        default: false,
        describe: 'keep rewriting report.html as the run logs (the page reloads itself) until it finishes or Ctrl-C',
      }),
    async (argv) => {
      const out = { line: (text: string) => console.log(text) };
      if (!argv.watch) {
        await report(argv.run, out);
        return;
      }
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      for (const sig of STOP_SIGNALS) process.once(sig, onSignal);
      try {
        await watchReport(argv.run, out, stop.signal);
      } finally {
        for (const sig of STOP_SIGNALS) process.off(sig, onSignal);
      }
    },
  );
}

/** `mgpu-train devices`: the GPUs nvidia-smi sees, the WebGPU adapters, and what `auto` picks. */
async function listDevices(): Promise<void> {
  const found = discoverGpus();
  if (found.gpus.length === 0) console.log(`nvidia-smi: no GPU (${found.reason})`);
  found.gpus.forEach((g, i) =>
    console.log(`GPU ${i}: ${g.name}, ${g.memoryMiB} MiB (nvidia-smi index ${g.index}, ${g.uuid}${g.pciBusId ? `, PCI ${g.pciBusId}` : ''})`),
  );
  const probe = await probeAdapters({});
  if (!probe.loaded) console.log(`webgpu: not available (${probe.error})`);
  else if (!probe.adapter) console.log(`webgpu: no adapter (${probe.error})`);
  else {
    console.log(`webgpu: default adapter ${adapterLabel(probe.adapter)}`);
    for (const a of probe.adapters) console.log(`  Dawn lists: ${a.name} [${a.backend}]`);
    console.log(`  Vulkan device-select layer (pins one worker per GPU): ${probe.deviceSelect ? 'installed' : 'not found'}`);
  }
  const gpu = autoTakesCuda(found.gpus.length, machineProbes) ? 'tfjs-node-gpu' : autoTakesWebgpu(probe) ? 'webgpu' : null;
  console.log(
    gpu
      ? `backend auto: ${gpu}, one worker per GPU`
      : `backend auto: no GPU backend here; training runs on simulated GPUs on the CPU (--simulate N)${found.gpus.length ? '. GPUs PRESENT BUT UNUSED: see the webgpu line above' : ''}`,
  );
}

/** `mgpu-train devices`. */
function devicesCommand<T>(y: Argv<T>) {
  return y.command('devices', 'list the GPUs and WebGPU adapters mgpu-train can use, and what `auto` picks', () => {}, listDevices);
}

/** `mgpu-train nets`. */
function netsCommand<T>(y: Argv<T>) {
  return y.command('nets', 'list the networks model.net names, with their parameters and inputs', () => {}, listNetworks);
}

/**
 * Parses `args` (the command line after the program) and runs its command; `check`: only check
 * the command line and the config it names (launch does, before it starts mpirun).
 */
async function main(args: string[], check = false): Promise<void> {
  checkOnly = check;
  let cli = yargs(args)
    .scriptName('mgpu-train')
    .usage('$0 <command> [options]\n\nData-parallel training of a TensorFlow.js model on every GPU of this machine.');
  cli = shardsCommand(netsCommand(devicesCommand(benchmarkCommand(reportCommand(predictCommand(evalCommand(trainCommand(cli))))))));
  cli = cli.command(
    'launch',
    'train on several machines: launch <mpirun arguments> -- train <config> [options] runs mpirun',
    () => {},
    () => {},
  );
  await cli
    .epilogue(helpExamples(helpWidth()))
    .demandCommand(1, `name a command: ${COMMANDS.join(', ')}`)
    .strict()
    .help()
    .wrap(helpWidth())
    .fail((msg, err: Error | undefined) => {
      // yargs passes no error for a usage mistake (its types say it always does)
      if (err) throw err;
      throw usageError(msg, args, knownFlags(cli));
    })
    .parseAsync();
}

let cluster = null as Cluster | null;
let checkOnly = false; // launch's check of its mgpu-train arguments: the config loaded, nothing run
const quietProgress = { step() {}, line() {}, done() {} };

// `train ... | head -3`, a terminal gone: the run goes on to its end, writing nothing more there.
keepGoingWhenOutputCloses(process.argv[2] === 'train' ? 'training goes on to its end; metrics.jsonl and the run directory record everything' : null);
try {
  const launch = launchedSize();
  const command = process.argv[2];
  checkCommand(command);
  if (launch && launch.size > 1 && command !== 'train') {
    throw new MgpuError('E_USAGE', `${command ?? 'this command'} runs on one machine, but an MPI launcher started ${launch.size} processes (${launch.by})`, {
      hint: 'only `train` runs on several machines; run eval, predict, report, benchmark, devices, nets and shards without mpirun',
    });
  }
  if (command === 'launch') process.exitCode = await launchJob(process.argv.slice(3), (mgpu) => main(mgpu, true));
  else await main(hideBin(process.argv));
} catch (err) {
  const where = cluster && cluster.size > 1 ? ` [${cluster.where(cluster.rank)}]` : '';
  console.error(formatError(err) + where);
  process.exitCode = err instanceof MgpuError ? err.exitCode : 1;
  // MPI cannot go on without this rank: end the whole job rather than leave the others waiting.
  if (cluster && cluster.size > 1) cluster.abort(process.exitCode);
}
