// mgpu-train as another project's dependency: `npm pack` of this repository, and the tarball
// installed into a fresh project by a real `npm ci`, offline: the project's package-lock.json
// gives every dependency's exact version and integrity, so npm takes them from its cache (where
// installing this repository put them) and never asks the registry. It runs with
// --ignore-scripts: the native addons are not compiled there (the run falls back to positional
// I/O and JavaScript kernels, as a machine without a C compiler does). When npm's cache lacks a
// package, the install says so and falls back to linking this repository's node_modules.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `npm pack` into `dir`: the tarball's path and the files it holds. */
export function pack(dir: string): { tarball: string; files: string[] } {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: path.join(dir, packed[0]!.filename), files: packed[0]!.files.map((f) => f.path) };
}

/** A package-lock.json for a project whose one dependency is the tarball: the repo's own lock, less its dev dependencies. */
function consumerLock(tarball: string, integrity: string): object {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
  const root = lock.packages['']!;
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', version: '1.0.0', dependencies: { 'mgpu-train': spec } },
    'node_modules/mgpu-train': {
      version: root.version,
      resolved: spec,
      integrity,
      hasInstallScript: true,
      license: root.license,
      dependencies: root.dependencies,
      bin: root.bin,
      engines: root.engines,
      peerDependencies: root.peerDependencies,
      peerDependenciesMeta: root.peerDependenciesMeta,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '' || entry.dev) continue;
    const { devOptional: _, ...kept } = entry;
    packages[key] = kept;
  }
  return { name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

/** Installs the tarball into `project`, a package of `type`; returns how (a real offline npm ci, or the fallback). */
export function install(project: string, tarball: string, type: 'module' | 'commonjs', diagnostic: (s: string) => void): 'npm ci' | 'linked' {
  const integrity = `sha512-${createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`;
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type, dependencies: { 'mgpu-train': `file:${tarball}` } }, null, 2),
  );
  fs.writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify(consumerLock(tarball, integrity), null, 2));
  const ci = spawnSync('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: project, encoding: 'utf8', timeout: 180_000 });
  if (ci.status === 0) return 'npm ci';
  // Not a real install: the package unpacked, its dependencies this repository's, linked.
  diagnostic(
    `npm ci --offline failed (exit ${ci.status}), so the dependencies are LINKED from this repository's node_modules:\n${ci.stderr.split('\n').slice(0, 4).join('\n')}`,
  );
  fs.rmSync(path.join(project, 'node_modules'), { recursive: true, force: true });
  fs.mkdirSync(path.join(project, 'node_modules'));
  execFileSync('tar', ['-xzf', tarball, '-C', project]);
  fs.renameSync(path.join(project, 'package'), path.join(project, 'node_modules', 'mgpu-train'));
  for (const name of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (name.startsWith('.') || name === 'mgpu-train') continue;
    fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(project, 'node_modules', name));
  }
  return 'linked';
}
