{
  # Built by the root package's install script (`node-gyp rebuild --directory native`); the
  # outputs are found by src/shared/mapped-memory.ts (mgpu_mmap.node: when it is missing the
  # project falls back to positional I/O on the slab) and src/shared/float-kernels.ts
  # (mgpu_float_kernels.node: when it is missing the same loops run in JavaScript) and
  # src/shared/cpu-affinity.ts (mgpu_affinity.node, Linux only: when it is missing simulated-GPU
  # workers are not pinned to cores, and the run header says so) and
  # src/worker/wasm-kernels/native-conv.ts (mgpu_conv_kernels.node: when it is missing the wasm
  # backend's convolutions run on XNNPACK and the JavaScript im2col kernels; it is built with
  # oneDNN where onednn-found.sh finds it) and
  # src/data/images/jpeg-native.ts (mgpu_jpeg.node: when it is missing, or TurboJPEG is not
  # installed so it is not built, sharp decodes the JPEGs too) and src/shared/crc32c.ts
  # (mgpu_crc32c.node: when it is missing the checksum runs in JavaScript).
  "targets": [
    {
      "target_name": "mgpu_mmap",
      "sources": ["src/mmap.c"],
      "defines": ["_GNU_SOURCE"],
      "cflags_c": ["-std=c11", "-O2", "-Wall", "-Wextra"],
      "libraries": ["-lm"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-O2", "-Wall", "-Wextra"] },
      "conditions": [
        ["OS=='win'", { "type": "none" }]
      ]
    },
    {
      "target_name": "mgpu_affinity",
      "sources": ["src/affinity.c"],
      "defines": ["_GNU_SOURCE"],
      "cflags_c": ["-std=c11", "-O2", "-Wall", "-Wextra"],
      "conditions": [
        ["OS!='linux'", { "type": "none" }]
      ]
    },
    {
      "target_name": "mgpu_crc32c",
      "sources": ["src/crc32c.c"],
      # No -march: the SSE4.2 loop is compiled with a target attribute and chosen at run time.
      "cflags_c": ["-std=c11", "-O2", "-Wall", "-Wextra"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-O2", "-Wall", "-Wextra"] },
      "conditions": [
        ["OS=='win'", { "type": "none" }]
      ]
    },
    {
      "target_name": "mgpu_float_kernels",
      "sources": ["src/float-kernels.c"],
      # -O3 vectorises the loops; no -march (the binary may run on another CPU than the one it
      # was built on) and no fused multiply-add, which would round differently from JavaScript;
      # -fno-math-errno lets sqrtf vectorise (the same correctly rounded results).
      "cflags_c": ["-std=c11", "-O3", "-ffp-contract=off", "-fno-math-errno", "-Wall", "-Wextra"],
      "libraries": ["-lm"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-O3", "-ffp-contract=off", "-fno-math-errno", "-Wall", "-Wextra"] },
      "conditions": [
        ["OS=='win'", { "type": "none" }]
      ]
    },
    {
      "target_name": "mgpu_conv_kernels",
      "sources": ["src/conv-kernels.c", "src/batch-norm.c", "src/fma-peak.c", "src/relu-max.c", "src/elementwise.c"],
      # -O3 and no -march: the AVX2+FMA micro-kernel is compiled with a target attribute and
      # chosen at run time when the CPU has it. batch-norm.c needs libm (sqrt). Where oneDNN
      # links (onednn-found.sh) the convolutions run on it (onednn-conv.c), the own kernels
      # computing what it declines; elsewhere the own kernels compute everything.
      "variables": { "has_onednn": "<!(sh onednn-found.sh 2>/dev/null || echo 0)" },
      "cflags_c": ["-std=c11", "-O3", "-Wall", "-Wextra"],
      "libraries": ["-lm"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-O3", "-Wall", "-Wextra"] },
      "conditions": [
        ["OS=='win'", { "type": "none" }],
        ["has_onednn==1", {
          "sources": ["src/onednn-conv.c"],
          "defines": ["MGPU_ONEDNN"],
          "libraries": ["-ldnnl", "-lgomp"]
        }]
      ]
    },
    {
      "target_name": "mgpu_jpeg",
      "sources": ["src/jpeg-decode.c", "src/jpeg-resample.c"],
      # Built only where a TurboJPEG program compiles and links (turbojpeg-found.sh): elsewhere
      # the target is empty and the other addons still build. No fused multiply-add: the
      # resampler's weights are computed in double and must round the same on every machine.
      # (a copy without the script, or without sh, leaves it out too.)
      "variables": { "has_turbojpeg": "<!(sh turbojpeg-found.sh 2>/dev/null || echo 0)" },
      "cflags_c": ["-std=c11", "-O3", "-ffp-contract=off", "-Wall", "-Wextra"],
      "libraries": ["-lturbojpeg", "-lm"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-O3", "-ffp-contract=off", "-Wall", "-Wextra"] },
      "conditions": [
        ["OS=='win' or has_turbojpeg==0", { "type": "none" }]
      ]
    }
  ]
}
