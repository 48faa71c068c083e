// The measured FMA peak of mgpu_conv_kernels (fma-peak.c), registered by conv-kernels.c.
#ifndef MGPU_FMA_PEAK_H
#define MGPU_FMA_PEAK_H
#include <node_api.h>

napi_value MgpuFmaPeak(napi_env env, napi_callback_info info);

#endif
