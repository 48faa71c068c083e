// The batch-norm functions of mgpu_conv_kernels (batch-norm.c), registered by conv-kernels.c.
#ifndef MGPU_BATCH_NORM_H
#define MGPU_BATCH_NORM_H
#include <node_api.h>

napi_value MgpuBatchNormTrain(napi_env env, napi_callback_info info);
napi_value MgpuBatchNormTrainGrad(napi_env env, napi_callback_info info);
// The phases of the two, for the synchronised statistics.
napi_value MgpuBatchNormSums(napi_env env, napi_callback_info info);
napi_value MgpuBatchNormSquaredDeviations(napi_env env, napi_callback_info info);
napi_value MgpuBatchNormApply(napi_env env, napi_callback_info info);
napi_value MgpuBatchNormGradSums(napi_env env, napi_callback_info info);
napi_value MgpuBatchNormGradParams(napi_env env, napi_callback_info info);
napi_value MgpuBatchNormGradApply(napi_env env, napi_callback_info info);

#endif
