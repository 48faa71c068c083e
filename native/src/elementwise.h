// The element-wise functions of mgpu_conv_kernels (elementwise.c), registered by conv-kernels.c.
#ifndef MGPU_ELEMENTWISE_H
#define MGPU_ELEMENTWISE_H
#include <node_api.h>

napi_value MgpuBinary(napi_env env, napi_callback_info info);
napi_value MgpuSelect(napi_env env, napi_callback_info info);
napi_value MgpuLeakyRelu(napi_env env, napi_callback_info info);

#endif
