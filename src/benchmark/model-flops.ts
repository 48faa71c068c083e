// The floating-point operations of one training sample of a tfjs model, as model FLOPs
// utilisation counts them (PaLM's MFU, Megatron's "model FLOPs"): the multiply-adds of its
// convolutions and dense layers, 2 FLOPs each, for the forward; the backward costs twice the
// forward (one product for the input's gradient, one for the weights'), so a training sample is
// 3 x the forward. Elementwise work (BatchNorm, activations, additions, pooling) is not counted:
// it is a few percent of a convolutional network's arithmetic and none of what a peak measures.
// ResNet-18 in its CIFAR form: 555,422,720 multiply-adds forward, 3.33 GFLOP a training sample.
//
// Per layer, with the output's spatial size from the layer's own output shape:
//   Conv2D           out positions x out channels x kh x kw x in channels
//   DepthwiseConv2D  out positions x (in channels x depth multiplier) x kh x kw
//   SeparableConv2D  its depthwise part, then a 1x1 Conv2D over the depthwise output
//   Dense            rows of its input (a sequence's steps too) x in features x units
// Layers of nested models are walked; a layer of another class that holds weights (a custom
// layer, a recurrent one, a transposed convolution) is named in `uncounted`, so a figure that
// leaves work out says so.
import type { LayersModel } from '@tensorflow/tfjs';

export interface ModelFlops {
  /** Multiply-adds x 2 of one sample's forward pass. */
  forward: number;
  /** forward x 3: one sample's forward and backward. */
  training: number;
  /** Class names of layers with weights whose work is not counted, sorted, each once. */
  uncounted: string[];
}

interface LayerLike {
  getClassName(): string;
  getConfig(): Record<string, unknown>;
  countParams(): number;
  depthMultiplier?: number;
  layers?: LayerLike[];
  input: { shape: (number | null)[] } | { shape: (number | null)[] }[];
  output: { shape: (number | null)[] } | { shape: (number | null)[] }[];
}

const dims = (shape: (number | null)[]) => shape.slice(1).map((d) => d ?? 1);
const product = (xs: number[]) => xs.reduce((a, b) => a * b, 1);
const shapeOf = (t: LayerLike['input']) => (Array.isArray(t) ? t[0]!.shape : t.shape);
const kernelArea = (cfg: Record<string, unknown>) => {
  const k = cfg['kernelSize'];
  return Array.isArray(k) ? product(k as number[]) : (k as number) ** 2;
};

/** One layer's forward multiply-adds, or null when its class is not one counted here. */
function layerMacs(l: LayerLike): number | null {
  const cfg = l.getConfig();
  const inShape = dims(shapeOf(l.input));
  const outShape = dims(shapeOf(l.output));
  const positions = product(outShape.slice(0, -1));
  const inChannels = inShape[inShape.length - 1]!;
  // The layer's own field: tfjs-layers 4.22's SeparableConv2D leaves depthMultiplier out of its config.
  const multiplier = l.depthMultiplier ?? 1;
  switch (l.getClassName()) {
    case 'Conv2D':
      return positions * outShape[outShape.length - 1]! * kernelArea(cfg) * inChannels;
    case 'DepthwiseConv2D':
      return positions * inChannels * multiplier * kernelArea(cfg);
    case 'SeparableConv2D': {
      const mid = inChannels * multiplier;
      return positions * mid * kernelArea(cfg) + positions * mid * outShape[outShape.length - 1]!;
    }
    case 'Dense':
      return product(inShape.slice(0, -1)) * inChannels * (cfg['units'] as number);
    default:
      return null;
  }
}

export function modelFlops(model: LayersModel): ModelFlops {
  let macs = 0;
  const uncounted = new Set<string>();
  const visit = (layers: LayerLike[]) => {
    for (const l of layers) {
      if (Array.isArray(l.layers) && l.layers.length > 0) {
        visit(l.layers);
        continue;
      }
      let m: number | null = null;
      try {
        m = layerMacs(l);
      } catch {
        // a layer applied more than once has no single input: its work is not counted
      }
      if (m !== null) macs += m;
      else if (l.countParams() > 0 && l.getClassName() !== 'BatchNormalization') uncounted.add(l.getClassName());
    }
  };
  visit(model.layers);
  return { forward: 2 * macs, training: 6 * macs, uncounted: [...uncounted].sort() };
}
