// `mgpu-train shards <images folder or list> <out dir>`: an image folder (ImageFolder's class
// folders) or an image list CSV into TFRecord or WebDataset tar shards (src/data/shards/).
import path from 'node:path';
import type { Argv } from 'yargs';
import { MgpuError } from '../shared/errors.ts';
import { parseShardSamples, parseShardSize } from '../data/shards/write-size.ts';
import { writeShards } from '../data/shards/write-shards.ts';
import { TFRECORD_FORMAT } from '../data/shards/write-tfrecord.ts';
import { WEBDATASET_FORMAT } from '../data/shards/write-tar.ts';

const FORMATS = { tfrecord: TFRECORD_FORMAT, webdataset: WEBDATASET_FORMAT };
const DEFAULT_SIZE = '256MB';

interface ShardsArgs {
  source: string;
  out: string;
  format: string;
  shardSize?: string;
  shardSamples?: string;
  shuffle?: boolean;
  seed?: string;
  prefix: string;
  check: string;
  force?: boolean;
  strict?: boolean;
}

function checkPrefix(prefix: string): string {
  if (prefix === '' || prefix.startsWith('.') || /[/\\]/.test(prefix))
    throw new MgpuError('E_USAGE', `--prefix ${JSON.stringify(prefix)} is not a file name prefix (empty, a leading '.', or a '/')`, {
      hint: 'e.g. --prefix train; the shards are <prefix>-00000-of-00004.tfrecord or <prefix>-000000.tar',
    });
  return prefix;
}

function seedOf(a: ShardsArgs): number | null {
  if (a.seed !== undefined && !a.shuffle) throw new MgpuError('E_USAGE', '--seed applies to --shuffle only', { hint: 'add --shuffle, or drop --seed' });
  if (!a.shuffle) return null;
  const seed = a.seed === undefined ? 0 : Number(a.seed);
  if (!Number.isSafeInteger(seed) || seed < 0 || !/^\s*\d+\s*$/.test(a.seed ?? '0'))
    throw new MgpuError('E_USAGE', `--seed ${JSON.stringify(a.seed)} is not a whole number`, { hint: 'e.g. --shuffle --seed 7' });
  return seed;
}

async function runShards(a: ShardsArgs): Promise<void> {
  const format = FORMATS[a.format as keyof typeof FORMATS];
  const sizeText = a.shardSize ?? (a.shardSamples === undefined ? DEFAULT_SIZE : undefined);
  const maxBytes = sizeText === undefined ? null : parseShardSize(sizeText);
  const maxSamples = a.shardSamples === undefined ? null : parseShardSamples(a.shardSamples);
  const seed = seedOf(a);
  const prefix = checkPrefix(a.prefix);
  const outDir = path.resolve(a.out);
  const m = await writeShards(a.source, {
    format,
    outDir,
    prefix,
    maxBytes,
    maxSamples,
    seed,
    check: a.check as 'decode' | 'header',
    force: a.force ?? false,
    strict: a.strict ?? false,
    arguments: {
      source: a.source,
      out: a.out,
      format: a.format,
      shardSize: sizeText ?? null,
      shardBytes: maxBytes,
      shardSamples: maxSamples,
      shuffle: seed !== null,
      seed,
      prefix,
      check: a.check,
      force: a.force ?? false,
      strict: a.strict ?? false,
    },
    say: (line) => console.log(line),
  });
  const files = m.shards.map((s) => s.file);
  const named = files.length > 2 ? `${files[0]} ... ${files.at(-1)}` : files.join(', ');
  const images = `${m.samples.toLocaleString('en-US')} image${m.samples === 1 ? '' : 's'}`;
  const left = m.skipped.length ? ` (${m.skipped.length} left out: they cannot be read, listed above)` : '';
  console.log(
    `wrote ${files.length} ${a.format} shard${files.length === 1 ? '' : 's'} of ${images}${left} in ${m.classes.length} classes to ${outDir}: ${named}; shards.json lists them`,
  );
}

export function shardsCommand<T>(y: Argv<T>) {
  return y.command(
    'shards <source> <out>',
    'convert an image folder (one subfolder per class) or an image list CSV (path,label) into TFRecord or WebDataset tar shards',
    (y) =>
      y
        .positional('source', { type: 'string', demandOption: true, describe: 'a folder of class folders, or a CSV of path,label lines' })
        .positional('out', { type: 'string', demandOption: true, describe: 'the folder the shards and shards.json go into' })
        .option('format', {
          type: 'string',
          choices: Object.keys(FORMATS),
          demandOption: true,
          describe: 'tfrecord (tf.train.Example records) or webdataset (tar)',
        })
        .option('shard-size', {
          type: 'string',
          describe: `close a shard before it would pass this size: 256MB, 1GB, 64MiB (default ${DEFAULT_SIZE} unless --shard-samples)`,
        })
        .option('shard-samples', { type: 'string', describe: 'at most this many images per shard' })
        .option('shuffle', { type: 'boolean', describe: "write the images in a seeded random order (default: the folder's index order, or the list's)" })
        .option('seed', { type: 'string', describe: 'the shuffle seed (default 0)' })
        .option('prefix', { type: 'string', default: 'train', describe: 'the shard file names: <prefix>-00000-of-00004.tfrecord, <prefix>-000000.tar' })
        .option('check', {
          type: 'string',
          choices: ['decode', 'header'],
          default: 'decode',
          describe: 'decode every image in full (default), or read only its header',
        })
        .option('force', { type: 'boolean', describe: 'replace the shards already in the out dir, and their indexes (once the new ones are complete)' })
        .option('strict', {
          type: 'boolean',
          describe: 'stop at the first image that cannot be read or decoded (default: leave it out, list it at the end and in shards.json)',
        }),
    (argv) => runShards(argv as unknown as ShardsArgs),
  );
}
