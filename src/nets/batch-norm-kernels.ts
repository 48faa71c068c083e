// The names of the fused BatchNorm kernels the networks' BatchNormalization layer asks a backend
// for (batch-norm-layer.ts): the contract between the layer and whoever registers the kernels.
// The layer looks them up in tfjs's kernel registry for the backend in use and falls back to
// tfjs's own layer where none is registered; the worker registers them, on wasm
// (src/worker/wasm-kernels/batch-norm-train.ts). A network never imports a backend's kernels.
//
// MgpuBatchNormTrain: inputs x (channel last, float32), gamma, beta; attrs { epsilon };
//   outputs y, the batch mean and the biased batch variance, per channel.
// MgpuBatchNormTrainGrad: inputs x, dy, gamma, mean, variance, dmean, dvariance; attrs
//   { epsilon }; outputs dx, dgamma, dbeta. Registered as MgpuBatchNormTrain's gradient.
export const BN_TRAIN = 'MgpuBatchNormTrain';
export const BN_TRAIN_GRAD = 'MgpuBatchNormTrainGrad';
