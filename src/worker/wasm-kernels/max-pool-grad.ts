// MaxPoolGrad for the wasm backend, in plain JS, replacing the one tfjs-backend-wasm 4.22 ships.
//
// Why replace a kernel the backend has: its C++ MaxPoolGrad starts each window's running max at
// std::numeric_limits<float>::min(), the smallest *positive* float, not the lowest one. A window
// whose values are all <= 0 therefore never records its true argmax, and its gradient goes to
// the wrong pixel or nowhere. After a ReLU that is harmless (those pixels get 0 from the ReLU's
// gradient anyway), but a max-pool after tanh, a linear conv, BatchNormalization, or on raw
// inputs trains on wrong gradients. Measured: dx differs from the cpu backend by up to ~1 on
// random N(0,1) inputs (test/unit/wasm-max-pool-grad.test.ts).
//
// Semantics are the cpu backend's: per window the first maximum in row-major order (strictly
// greater wins, so NaN never does), padding excluded, and dy summed into that pixel.
import type { MaxPoolGradAttrs, TensorInfo } from '@tensorflow/tfjs';
import { f32, type KernelArgs, makeOutput, requireFloat32, type TF } from './util.ts';

const KERNEL = 'MaxPoolGrad';

export function maxPoolGrad(tf: TF, args: KernelArgs<MaxPoolGradAttrs>): TensorInfo {
  const { inputs, backend, attrs } = args;
  const dy = inputs.dy!;
  const x = inputs.input!;
  requireFloat32(KERNEL, ['dy', dy], ['input', x]);
  const { filterSize, strides, pad, dimRoundingMode } = attrs;
  const info = tf.backend_util.computePool2DInfo(x.shape as [number, number, number, number], filterSize, strides, 1, pad, dimRoundingMode);
  const { batchSize: B, inHeight: H, inWidth: W, inChannels: C, outHeight: OH, outWidth: OW } = info;
  const { strideHeight: sh, strideWidth: sw, effectiveFilterHeight: KH, effectiveFilterWidth: KW } = info;
  if (dy.shape.join() !== [B, OH, OW, C].join()) {
    throw new Error(`${KERNEL} (wasm, mgpu): dy has shape [${dy.shape}], expected [${[B, OH, OW, C]}]`);
  }
  const top = info.padInfo.top;
  const left = info.padInfo.left;
  const out = makeOutput(backend, [B, H, W, C]);
  // Views after the allocation (it may grow the heap).
  const dx = f32(backend, out);
  const xv = f32(backend, x);
  const dyv = f32(backend, dy);
  dx.fill(0);
  const best = new Float32Array(C);
  const where = new Int32Array(C);
  for (let b = 0; b < B; b++) {
    for (let oh = 0; oh < OH; oh++) {
      const r0 = Math.max(0, oh * sh - top);
      const r1 = Math.min(H, oh * sh - top + KH);
      for (let ow = 0; ow < OW; ow++) {
        const c0 = Math.max(0, ow * sw - left);
        const c1 = Math.min(W, ow * sw - left + KW);
        best.fill(-Infinity);
        where.fill(-1);
        for (let ih = r0; ih < r1; ih++) {
          for (let iw = c0; iw < c1; iw++) {
            const o = ((b * H + ih) * W + iw) * C;
            for (let c = 0; c < C; c++) {
              const v = xv[o + c]!;
              if (v > best[c]!) {
                best[c] = v;
                where[c] = o + c;
              }
            }
          }
        }
        const yo = ((b * OH + oh) * OW + ow) * C;
        for (let c = 0; c < C; c++) {
          const at = where[c]!;
          if (at >= 0) dx[at]! += dyv[yo + c]!;
        }
      }
    }
  }
  return out;
}
