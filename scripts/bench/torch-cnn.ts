// PyTorch's training rate on the same networks, the anchor of the convolutional benchmark:
// torchvision's models (resnet18 in its CIFAR form: a 3x3 stride-1 stem and no max-pool, 10
// classes, 11,173,962 parameters; mobilenet_v2 at width 1.0, 10 classes), momentum SGD,
// synthetic data, one thread per process. `procs` = 1 is one plain process; `procs` > 1 is
// DistributedDataParallel over gloo with the global batch split evenly, as mgpu-train's workers
// split it. Debian's python3-torch and python3-torchvision (never a dependency of the project);
// null where they cannot be had.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

// Debian's own python, where apt puts python3-torch (a pyenv or venv python3 on PATH lacks it).
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

const SCRIPT = `
import json, os, sys, time, statistics
import torch, torch.nn as nn, torchvision
import torch.distributed as dist, torch.multiprocessing as mp

def build(name):
    if name == 'resnet18-cifar':
        m = torchvision.models.resnet18(num_classes=10)
        m.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        m.maxpool = nn.Identity()
        return m
    if name == 'mobilenet-v2':
        return torchvision.models.mobilenet_v2(num_classes=10)
    raise SystemExit('unknown network ' + name)

def run(rank, procs, name, size, batch, steps, warmup, port, out):
    torch.set_num_threads(1)
    torch.manual_seed(1)
    model = build(name)
    if procs > 1:
        os.environ['MASTER_ADDR'] = '127.0.0.1'
        os.environ['MASTER_PORT'] = str(port)
        dist.init_process_group('gloo', rank=rank, world_size=procs)
        model = nn.parallel.DistributedDataParallel(model)
    shard = batch // procs
    x = torch.randn(shard, 3, size, size)
    y = torch.randint(0, 10, (shard,))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    times = []
    for i in range(warmup + steps):
        t = time.perf_counter()
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
        if procs > 1: dist.barrier()
        if i >= warmup: times.append(time.perf_counter() - t)
    if rank == 0:
        params = sum(p.numel() for p in model.parameters() if p.requires_grad)
        with open(out, 'w') as f:
            json.dump({'stepSeconds': times, 'params': params}, f)
    if procs > 1: dist.destroy_process_group()

if __name__ == '__main__':
    name, size, batch, procs, steps, warmup, port, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), sys.argv[8]
    if procs == 1: run(0, 1, name, size, batch, steps, warmup, port, out)
    else: mp.spawn(run, args=(procs, name, size, batch, steps, warmup, port, out), nprocs=procs)
`;

export interface TorchRate {
  /** Global images per second, the mean over the measured steps. */
  imagesPerSec: number;
  /** Per-step global images per second, for the standard error and jitter. */
  perStep: number[];
  params: number;
}

/** Whether torch and torchvision import, installing Debian's packages with apt-get when not. */
export function haveTorch(): boolean {
  const ok = () => spawnSync(PYTHON, ['-c', 'import torch, torchvision'], { stdio: 'ignore' }).status === 0;
  if (ok()) return true;
  console.log('(installing python3-torch and python3-torchvision with apt-get for the comparison)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'python3-torch', 'python3-torchvision'], { stdio: 'ignore', env });
  return ok();
}

/** PyTorch's rate on `net` at `size`x`size`, global batch `batch` over `procs` processes. */
export function torchCnnRate(net: string, size: number, batch: number, procs: number, steps: number, warmup: number): TorchRate | null {
  // A file, not python -c: DDP's spawned processes import the parent's __main__ from its path.
  const script = `/tmp/mgpu-torch-cnn-${process.pid}.py`;
  const out = `/tmp/mgpu-torch-cnn-${process.pid}.json`;
  fs.writeFileSync(script, SCRIPT);
  const port = String(29500 + (process.pid % 1000));
  const args = [script, net, String(size), String(batch), String(procs), String(steps), String(warmup), port, out];
  const r = spawnSync(PYTHON, args, { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1' } });
  try {
    if (r.status !== 0) {
      console.log(`(PyTorch failed: ${r.stderr.trim().split('\n').at(-1)})`);
      return null;
    }
    const { stepSeconds, params } = JSON.parse(fs.readFileSync(out, 'utf8')) as { stepSeconds: number[]; params: number };
    const perStep = stepSeconds.map((s) => batch / s);
    const total = stepSeconds.reduce((a, b) => a + b, 0);
    return { imagesPerSec: (batch * stepSeconds.length) / total, perStep, params };
  } finally {
    fs.rmSync(out, { force: true });
    fs.rmSync(script, { force: true });
  }
}
