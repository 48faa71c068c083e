// The batch-norm functions of mgpu_conv_kernels (batch-norm.c), registered by conv-kernels.c.
#ifndef MGPU_BATCH_NORM_H
#define MGPU_BATCH_NORM_H
#include <node_api.h>

napi_value MgpuBatchNormTrain(napi_env env, napi_callback_info info);
napi_value MgpuBatchNormTrainGrad(napi_env env, napi_callback_info info);

#endif
