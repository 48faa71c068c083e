// The fused ReLU-with-a-ceiling functions of mgpu_conv_kernels (relu-max.c), registered by conv-kernels.c.
#ifndef MGPU_RELU_MAX_H
#define MGPU_RELU_MAX_H
#include <node_api.h>

napi_value MgpuReluMax(napi_env env, napi_callback_info info);
napi_value MgpuRelu6Grad(napi_env env, napi_callback_info info);
napi_value MgpuReluMaxGrad(napi_env env, napi_callback_info info);

#endif
