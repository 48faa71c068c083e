// The fused ReLU6 functions of mgpu_conv_kernels (relu6.c), registered by conv-kernels.c.
#ifndef MGPU_RELU6_H
#define MGPU_RELU6_H
#include <node_api.h>

napi_value MgpuRelu6(napi_env env, napi_callback_info info);
napi_value MgpuRelu6Grad(napi_env env, napi_callback_info info);

#endif
