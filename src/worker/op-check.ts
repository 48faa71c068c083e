// Pre-flight check of a worker's backend against its model: one forward + backward pass on a
// batch of one zero input, exactly as a training step runs it (training mode, gradients of the
// trainable variables), before any step is taken. A kernel the backend lacks ("Kernel 'X' not
// registered for backend 'Y'") becomes an E_BACKEND error that names the kernel, what it is the
// gradient of, the layers that need it, and what to do -- instead of a failure in step 0.
//
// When the whole-model pass fails for a missing kernel, each layer is probed alone (its weights'
// gradients, and its input's gradient when the layer is not fed by the model input), so every
// missing kernel and every layer that needs it is reported, not only the first one met.
//
// The pass leaves the model as it was: every weight (BatchNormalization's moving statistics are
// updated by a training-mode pass) is restored, and Math.random (Dropout) is seeded and put back.
import type { LayersModel, Scalar, SymbolicTensor, Tensor, Variable } from '@tensorflow/tfjs';
import { MgpuError } from '../shared/errors.ts';
import { withSeededMathRandom } from '../shared/rng.ts';
import type { TF } from './backend.ts';

type Layer = LayersModel['layers'][number];

export interface OpCheckOptions {
  /**
   * The scalar the backward pass starts from; default the sum of the model's outputs. A training
   * loop can pass its loss here (on labels of its own) to have the loss's kernels checked too.
   */
  objective?: (tf: TF, output: Tensor) => Scalar;
}

export interface MissingKernel {
  kernel: string;
  backend: string;
  /** The layers whose pass needs it, as "name (ClassName)"; empty when no single layer does. */
  layers: string[];
}

export interface OpCheckResult {
  /** False when the model's input shape has unknown dimensions besides the batch: not checked. */
  checked: boolean;
  reason?: string;
}

const NOT_REGISTERED = /Kernel '([^']+)' not registered for backend '([^']+)'/;

/** What a kernel is for, to make the error readable; kernels not listed are named as they are. */
const KERNEL_ROLE: Record<string, string> = {
  Conv2DBackpropFilter: 'gradient of a convolution w.r.t. its filter',
  Conv2DBackpropInput: 'gradient of a convolution w.r.t. its input',
  DepthwiseConv2dNativeBackpropFilter: 'gradient of a depthwise convolution w.r.t. its filter',
  DepthwiseConv2dNativeBackpropInput: 'gradient of a depthwise convolution w.r.t. its input',
  Conv3DBackpropFilterV2: 'gradient of a 3-D convolution w.r.t. its filter',
  Conv3DBackpropInputV2: 'gradient of a 3-D convolution w.r.t. its input',
  MaxPoolGrad: 'gradient of max pooling',
  AvgPoolGrad: 'gradient of average pooling',
  UnsortedSegmentSum: 'gradient of gather, as in Embedding',
  ResizeNearestNeighborGrad: 'gradient of nearest-neighbour resizing',
  ResizeBilinearGrad: 'gradient of bilinear resizing',
};

/** The kernel a "not registered" error names, or null for any other error. */
export function missingKernelOf(err: unknown): { kernel: string; backend: string } | null {
  const m = NOT_REGISTERED.exec((err as Error | null | undefined)?.message ?? '');
  return m ? { kernel: m[1]!, backend: m[2]! } : null;
}

/**
 * Runs one training-mode forward + backward pass of `model` on a zero batch of one, on the active
 * backend of `tf`, and throws MgpuError('E_BACKEND') naming every kernel that pass needs and the
 * backend lacks, and the layers that need them. `backendName` is how the error names the backend
 * (e.g. the worker's "wasm (wasm)"); the kernels are looked up on tf.getBackend(). Any other error
 * of the pass is thrown as it is (a training step would meet it too).
 */
export function checkModelOps(tf: TF, model: LayersModel, backendName: string, opts: OpCheckOptions = {}): OpCheckResult {
  const shapes = model.inputs.map((t) => t.shape);
  const unknown = shapes.find((s) => s.slice(1).some((d) => d == null));
  if (unknown) {
    return { checked: false, reason: `the model input shape [${unknown.map((d) => d ?? 'null')}] has unknown dimensions` };
  }
  const objective = opts.objective ?? ((t: TF, out: Tensor) => t.sum<Scalar>(t.cast(out, 'float32')));
  const restore = snapshotWeights(tf, model);
  try {
    const first = tryPass(
      tf,
      gradsOf(
        tf,
        () => {
          const xs = model.inputs.map((t) => zerosLike(tf, t));
          const out = model.apply(xs.length === 1 ? xs[0]! : xs, { training: true }) as Tensor | Tensor[];
          return objective(tf, Array.isArray(out) ? out[0]! : out);
        },
        trainableVars(model.trainableWeights),
      ),
    );
    if (!first) return { checked: true };
    const missing = probeLayers(tf, model);
    if (!missing.some((m) => m.kernel === first.kernel)) missing.unshift({ ...first, layers: [] });
    throw backendError(missing, backendName);
  } finally {
    restore();
  }
}

function backendError(missing: MissingKernel[], backendName: string): MgpuError {
  const parts = missing.map((m) => {
    const role = KERNEL_ROLE[m.kernel] ? ` (${KERNEL_ROLE[m.kernel]})` : '';
    const who = m.layers.length > 0 ? ` needed by layer${m.layers.length > 1 ? 's' : ''} ${m.layers.join(', ')}` : '';
    return `${m.kernel}${role}${who}`;
  });
  return new MgpuError('E_BACKEND', `backend ${backendName} cannot train this model; it has no kernel for ${parts.join('; ')}`, {
    hint: 'use --backend cpu (every kernel, slower), or install @tensorflow/tfjs-node and use --backend tfjs-node',
  });
}

/**
 * Runs `pass` inside a tidy with Math.random seeded. Returns null when it ran, the missing kernel
 * when one was missing; any other error is thrown. (A pass that fails in its backward half leaves
 * the few batch-of-one tensors tfjs saved for it undisposed -- tfjs offers no way to free them --
 * which is of no consequence: a failed check ends the worker.)
 */
function tryPass(tf: TF, pass: () => void): { kernel: string; backend: string } | null {
  try {
    withSeededMathRandom(0, () => tf.tidy(pass));
    return null;
  } catch (err) {
    const missing = missingKernelOf(err);
    if (!missing) throw err;
    return missing;
  }
}

/** Forward + the gradients of `vars` (just the forward when there are none). */
function gradsOf(tf: TF, loss: () => Scalar, vars: Variable[]): () => void {
  return () => {
    if (vars.length > 0) tf.variableGrads(loss, vars);
    else loss();
  };
}

/** Each layer alone: its weights' gradients, then its input's, collecting the missing kernels. */
function probeLayers(tf: TF, model: LayersModel): MissingKernel[] {
  const found = new Map<string, MissingKernel>();
  const note = (m: { kernel: string; backend: string } | null, layer: Layer) => {
    if (!m) return;
    const entry = found.get(m.kernel) ?? { ...m, layers: [] };
    const name = `${layer.name} (${layer.getClassName()})`;
    if (!entry.layers.includes(name)) entry.layers.push(name);
    found.set(m.kernel, entry);
  };
  for (const { layer, onModelInput } of leafLayers(model, true)) {
    const node = layer.inboundNodes[0];
    if (!node) continue;
    const inputs = node.inputTensors;
    if (inputs.some((t) => t.shape.slice(1).some((d) => d == null))) continue;
    const run = (xs: Tensor[]) => {
      const out = layer.apply(xs.length === 1 ? xs[0]! : xs, { training: true }) as Tensor | Tensor[];
      const outs = Array.isArray(out) ? out : [out];
      return tf.addN(outs.map((o) => tf.sum(tf.cast(o, 'float32')))) as Scalar;
    };
    const zeros = () => inputs.map((t) => zerosLike(tf, t));
    const vars = trainableVars(layer.trainableWeights);
    // One variable at a time, so that two kernels missing for one layer are both found.
    for (const v of vars)
      note(
        tryPass(
          tf,
          gradsOf(tf, () => run(zeros()), [v]),
        ),
        layer,
      );
    // The input's gradient, which training needs unless the layer sits on the model's input.
    if (!onModelInput && inputs.every((t) => t.dtype === 'float32')) {
      note(
        tryPass(tf, () => {
          tf.grads((...xs: Tensor[]) => run(xs))(zeros());
        }),
        layer,
      );
    }
    if (vars.length === 0)
      note(
        tryPass(
          tf,
          gradsOf(tf, () => run(zeros()), []),
        ),
        layer,
      );
  }
  return [...found.values()];
}

/**
 * The model's layers, nested models opened up, input layers left out; `onModelInput` when all of
 * a layer's inputs come straight from the outermost model's input (no gradient flows past it).
 */
function leafLayers(model: LayersModel, modelOnInput: boolean): { layer: Layer; onModelInput: boolean }[] {
  const out: { layer: Layer; onModelInput: boolean }[] = [];
  for (const layer of model.layers) {
    if (layer.getClassName() === 'InputLayer') continue;
    // A layer fed only by input layers sits on the model's input: the outer one's, or for a
    // nested model, wherever that model itself sits. (A nested model's first node links its own
    // inputs to its outputs and has no inbound layers: only the nodes that apply it count.)
    const applied = layer.inboundNodes.filter((n) => n.inboundLayers.length > 0);
    const onInput = modelOnInput && applied.every((n) => n.inboundLayers.every((l) => l.getClassName() === 'InputLayer'));
    const nested = (layer as unknown as { layers?: Layer[] }).layers;
    if (Array.isArray(nested)) out.push(...leafLayers(layer as unknown as LayersModel, onInput));
    else out.push({ layer, onModelInput: onInput });
  }
  return out;
}

function trainableVars(weights: LayersModel['trainableWeights']): Variable[] {
  return weights.map((w) => (w as unknown as { val: Variable }).val);
}

function zerosLike(tf: TF, t: SymbolicTensor): Tensor {
  return tf.zeros([1, ...(t.shape.slice(1) as number[])], t.dtype);
}

/** Saves every weight of the model; the returned function puts them back and frees the copies. */
function snapshotWeights(tf: TF, model: LayersModel): () => void {
  const saved = model.weights.map((w) => tf.clone(w.read()));
  return () => {
    model.weights.forEach((w, i) => w.write(saved[i]!));
    tf.dispose(saved);
  };
}
