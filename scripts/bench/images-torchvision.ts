// torchvision's ImageFolder + DataLoader on the same folder and the same work (resize the
// shorter side to the size, centre crop, random horizontal flip, uint8 tensors), with
// num_workers = 0 (one process) and = the thread count. Debian's python3-torchvision, installed
// here with apt when missing (never a dependency of the project); null where it cannot be had.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

// Debian's own python, where apt puts python3-torchvision (a pyenv or venv python3 on PATH lacks it).
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

const SCRIPT = `
import sys, time, torch, torchvision
from torchvision import transforms as T
root, size, workers, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(1)
tf = T.Compose([T.Resize(size), T.CenterCrop(size), T.RandomHorizontalFlip(), T.PILToTensor()])
ds = torchvision.datasets.ImageFolder(root, transform=tf)
best = 0
for r in range(reps + 1):
    dl = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=workers, shuffle=False)
    t = time.perf_counter()
    n = sum(x.shape[0] for x, _ in dl)
    rate = n / (time.perf_counter() - t)
    if r > 0: best = max(best, rate)
print(best)
`;

// One warm pass, then one measured: images/s and the CPU time per image of the process and its
// DataLoader workers (os.times: the workers are reaped when the pass ends, so theirs counts).
const CPU_SCRIPT = `
import os, sys, time, torch, torchvision
from torchvision import transforms as T
root, size, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(1)
tf = T.Compose([T.Resize(size), T.CenterCrop(size), T.RandomHorizontalFlip(), T.PILToTensor()])
ds = torchvision.datasets.ImageFolder(root, transform=tf)
cpu = lambda t: t.user + t.system + t.children_user + t.children_system
for r in range(2):
    dl = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=workers, shuffle=False)
    c, t = os.times(), time.perf_counter()
    n = sum(x.shape[0] for x, _ in dl)
    wall, used = time.perf_counter() - t, cpu(os.times()) - cpu(c)
print(n / wall, used * 1000 / n)
`;

/** One measured pass (after a warm one): images/s and CPU ms per image, or null where torchvision fails. */
export function torchvisionCpu(dir: string, size: number, workers: number): { rate: number; cpuMs: number } | null {
  const r = spawnSync(PYTHON, ['-c', CPU_SCRIPT, dir, String(size), String(workers)], { encoding: 'utf8' });
  if (r.status !== 0) {
    console.log(`(torchvision failed: ${r.stderr.trim().split('\n').at(-1)})`);
    return null;
  }
  const [rate, cpuMs] = r.stdout.trim().split(/\s+/).map(Number);
  return { rate: rate!, cpuMs: cpuMs! };
}

/** Whether torchvision imports, installing python3-torchvision with apt-get when it does not. */
export function haveTorchvision(): boolean {
  const ok = () => spawnSync(PYTHON, ['-c', 'import torchvision'], { stdio: 'ignore' }).status === 0;
  if (ok()) return true;
  console.log('(installing python3-torchvision with apt-get for the comparison)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'python3-torchvision'], { stdio: 'ignore', env });
  return ok();
}

/** Images per second, the best of `reps` passes over the folder (after one warm pass). */
export function torchvisionRate(dir: string, size: number, workers: number, reps: number): number | null {
  const r = spawnSync(PYTHON, ['-c', SCRIPT, dir, String(size), String(workers), String(reps)], { encoding: 'utf8' });
  if (r.status !== 0) {
    console.log(`(torchvision failed: ${r.stderr.trim().split('\n').at(-1)})`);
    return null;
  }
  return Number(r.stdout.trim());
}
