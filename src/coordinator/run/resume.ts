// What --resume continues with. The checkpoint's trainer-state.json holds the run's resolved
// config; the command line's --set overrides (and flags) are applied on top of it, so nothing
// has to be repeated. A change to what the checkpoint fixes (the model, loss, data, global
// batch, seed, optimizer and schedule) is refused naming the old and new values, unless
// --allow-changed names it; changes that only affect how the run goes on (logging, eval,
// checkpoints, devices, reliability, its length) are allowed and reported.
import fs from 'node:fs';
import path from 'node:path';
import { OPTIMIZER_PARAMS, SCHEDULE_PARAMS } from '../../config/defaults.ts';
import { configToRaw } from '../../config/load.ts';
import { applyOverrides } from '../../config/overrides.ts';
import type { Config } from '../../config/types.ts';
import { isMapping } from '../../config/checker.ts';
import { validateConfig } from '../../config/validate.ts';
import { MgpuError } from '../../shared/errors.ts';
import { findCheckpoint, readTrainerState, runDirOf } from './checkpoint.ts';
import type { TrainerState } from './trainer-state.ts';
import { verifyCheckpoint } from './checkpoint-integrity.ts';
import { holdsUntrainedRun } from './run-dir.ts';

/** Key paths (and the sections under them) a resume may change freely. */
const HARMLESS = [
  'name',
  'log',
  'eval',
  'checkpoint',
  'devices',
  'reliability',
  'training.steps',
  'training.epochs',
  'training.accumulateSteps',
  'training.earlyStopping',
];
/** Changes the checkpoint's state cannot follow, allowed or not. */
const IMPOSSIBLE: Record<string, (from: unknown, to: unknown) => string | null> = {
  'optimizer.name': (from) => `the checkpoint's optimizer state is ${String(from)}'s`,
  'training.ema': (from, to) =>
    (from === null) !== (to === null) ? (from === null ? 'the checkpoint holds no EMA weights' : "the checkpoint's EMA weights would be dropped") : null,
};
/** Not part of what a run is: where it is written is checked on its own (sameRun), and where its config came from does not matter. */
const IGNORED = ['runDir', 'configPath'];

export interface ConfigChange {
  key: string; // as a config file writes it (model.dropout)
  path: string; // where the resolved config keeps it (model.net.dropout)
  from: unknown;
  to: unknown;
}

const under = (key: string, prefix: string) => key === prefix || key.startsWith(`${prefix}.`);

/**
 * A resolved config's key path as a config file writes it: a network's options sit under
 * model.net in the resolved config, but are written model.dropout, model.classes, ... beside
 * model: { net: <name> }.
 */
export function keyAsWritten(path: string): string {
  if (path === 'model.net.name') return 'model.net';
  return path.startsWith('model.net.') ? `model.${path.slice('model.net.'.length)}` : path;
}

function leaves(v: unknown, at: string, out: Map<string, unknown>): Map<string, unknown> {
  if (isMapping(v)) {
    for (const [k, x] of Object.entries(v)) leaves(x, at ? `${at}.${k}` : k, out);
  } else if (at) {
    out.set(at, v);
  }
  return out;
}

/**
 * Every key path whose value differs between the checkpoint's config and this one. Mappings on
 * both sides are compared key by key; a value that is a mapping on one side only (eval.every
 * 0 → { epochs: 1 }, checkpoint.best null → { monitor, mode }) is one change of that key.
 */
export function configChanges(saved: Config, now: Config): ConfigChange[] {
  const out: ConfigChange[] = [];
  const diff = (a: unknown, b: unknown, at: string) => {
    if (at && IGNORED.some((p) => under(at, p))) return;
    // A key added since the checkpoint was written (training.classWeights, a source's weights):
    // the run had its behaviour, which its null default keeps.
    if (a === undefined && b === null) return;
    if (isMapping(a) && isMapping(b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diff(a[k], b[k], at ? `${at}.${k}` : k);
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      out.push({ key: keyAsWritten(at), path: at, from: a, to: b });
    }
  };
  diff(saved, now, '');
  return out;
}

const show = (v: unknown) => (v === undefined ? '(not set)' : typeof v === 'string' ? v : JSON.stringify(v));
const describe = (c: ConfigChange) => `${c.key} ${show(c.from)} → ${show(c.to)}`;

/**
 * Refuses the changes a resume cannot make, or may make only when `allowed` (key prefixes from
 * --allow-changed) names them; returns what it accepts, with the line that reports them.
 */
export function checkConfigChanges(
  checkpoint: string,
  state: TrainerState,
  cfg: Config,
  allowed: readonly string[],
): { changes: ConfigChange[]; report: string | null } {
  // A prefix names keys as the config file writes them or as the resolved config keeps them.
  const known = [...leaves(state.config, '', new Map()).keys()].flatMap((k) => [k, keyAsWritten(k)]);
  for (const prefix of allowed) {
    if (!known.some((k) => under(k, prefix))) {
      throw new MgpuError('E_USAGE', `--allow-changed ${prefix}: no config key is ${prefix} or under it`, {
        hint: 'name a key path such as optimizer.learningRate, or a section such as optimizer',
      });
    }
  }
  const changes = configChanges(state.config, cfg);
  const impossible = changes.flatMap((c) => {
    const why = IMPOSSIBLE[c.path]?.(c.from, c.to);
    return why ? [`${c.key} is ${show(c.to)}, the checkpoint was trained with ${show(c.from)}: ${why}`] : [];
  });
  if (impossible.length) {
    throw new MgpuError('E_CONFIG', `cannot resume from ${checkpoint}: ${impossible.join('; ')}`, {
      hint: 'this cannot be changed in a resumed run, not even with --allow-changed: start a new run',
    });
  }
  const fixed = changes.filter((c) => !HARMLESS.some((p) => under(c.path, p)));
  const refused = fixed.filter((c) => !allowed.some((p) => under(c.key, p) || under(c.path, p)));
  if (refused.length) {
    throw new MgpuError(
      'E_CONFIG',
      `cannot resume from ${checkpoint}: ${refused.map((c) => `${c.key} is ${show(c.to)}, the checkpoint was trained with ${show(c.from)}`).join('; ')}`,
      {
        hint:
          `the checkpoint fixes ${refused.length > 1 ? 'these' : 'this'}: resume without the --set that changes ${refused.length > 1 ? 'them' : 'it'}, ` +
          `or change ${refused.length > 1 ? 'them' : 'it'} anyway with ${[...new Set(refused.map((c) => `--allow-changed ${c.key}`))].join(' ')}, or start a new run`,
      },
    );
  }
  const report =
    changes.length === 0 ? null : `changed on resume: ${changes.map((c) => describe(c) + (fixed.includes(c) ? ' (--allow-changed)' : '')).join(', ')}`;
  return { changes, report };
}

/** Refuses to continue another run's checkpoint into this config's run directory. */
export function checkSameRun(checkpoint: string, state: TrainerState, cfg: Config): void {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const theirs = runDirOf(checkpoint, state);
  if (real(theirs) !== real(cfg.runDir)) {
    throw new MgpuError('E_USAGE', `--resume ${checkpoint} is a checkpoint of the run in ${theirs}, but this config's run directory is ${cfg.runDir}`, {
      hint: `to continue that run, add --run-dir ${theirs}; to continue this one, use --resume without a directory`,
    });
  }
}

/**
 * A --set of optimizer.name or schedule.name: the saved keys the new name does not read are
 * dropped (validation would reject them before the change itself could be named); keys the
 * --set gives are kept, and checked.
 */
function dropUnread(raw: Record<string, unknown>, saved: Config, sets: readonly string[]): void {
  const given = new Set(sets.map((s) => s.slice(0, Math.max(0, s.indexOf('='))).trim()));
  const reads = { optimizer: OPTIMIZER_PARAMS as Record<string, readonly string[]>, schedule: SCHEDULE_PARAMS as Record<string, readonly string[]> };
  for (const section of ['optimizer', 'schedule'] as const) {
    const s = raw[section];
    if (!isMapping(s) || s.name === saved[section].name || typeof s.name !== 'string' || !Object.hasOwn(reads[section], s.name)) continue;
    for (const key of Object.keys(s)) {
      if (key !== 'name' && !reads[section][s.name]!.includes(key) && !given.has(`${section}.${key}`)) delete s[key];
    }
  }
}

/** The checkpoint --resume `target` names; a run directory whose run trained no step says to run without --resume. */
function findResumable(target: string): string {
  try {
    return findCheckpoint(target);
  } catch (err) {
    if (!(err instanceof MgpuError) || !holdsUntrainedRun(target)) throw err;
    throw new MgpuError('E_USAGE', `${err.message}: its run trained no step (it failed or was stopped at its first step)`, {
      hint: 'run the same command without --resume: a new run takes the place of a run that trained no step',
    });
  }
}

/**
 * The config a resumed run continues with: the checkpoint's own resolved config with `sets` (the
 * command line's --set and flags) applied, written to `fileCfg`'s run directory. `fileCfg` is
 * the config file as given (with the same sets): it names the run.
 */
export function resumeConfig(
  target: string,
  fileCfg: Config,
  sets: readonly string[],
  cwd = process.cwd(),
): { config: Config; checkpoint: string; notApplied: string | null } {
  const checkpoint = findResumable(target);
  verifyCheckpoint(checkpoint, 'resume');
  const state = readTrainerState(checkpoint);
  checkSameRun(checkpoint, state, fileCfg);
  const raw = applyOverrides(configToRaw(state.config), [...sets]);
  dropUnread(raw, state.config, sets);
  const restored = validateConfig(raw, { configPath: fileCfg.configPath, cwd });
  // `devices` describes the machine, not the run: a run resumes on the GPUs (or machines) it is
  // given now, from the file and flags, as a torchrun or Horovod job restarts on what it has.
  const devices = applyOverrides(configToRaw(fileCfg), [...sets]).devices;
  const config = {
    ...restored,
    devices: validateConfig({ ...raw, devices }, { configPath: fileCfg.configPath, cwd }).devices,
    runDir: fileCfg.runDir,
    configPath: fileCfg.configPath,
  };
  // The file may have been edited since (or the first run had --set): say what of it is not used.
  const differ = configChanges(config, fileCfg);
  const notApplied =
    differ.length === 0
      ? null
      : `resuming with the run's saved config; where ${fileCfg.configPath ?? 'the config'} differs it is not used: ${differ.map((c) => `${c.key} ${show(c.from)} (file: ${show(c.to)})`).join(', ')}`;
  return { config, checkpoint, notApplied };
}
