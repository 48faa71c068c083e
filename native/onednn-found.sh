#!/bin/sh
# Prints 1 when a C program using oneDNN (Intel's oneAPI Deep Neural Network Library, the one
# PyTorch's CPU convolutions run on; Debian: libdnnl-dev, installed by scripts/ci/install-onednn.sh)
# compiles and links here, else 0: binding.gyp then builds the convolution addon with
# native/src/onednn-conv.c, and without it elsewhere (the addon's own kernels compute everything).
t=$(mktemp -d) || { echo 0; exit 0; }
printf '#include <oneapi/dnnl/dnnl.h>\nint main(void) { return dnnl_version()->major < 2; }\n' > "$t/t.c"
if ${CC:-cc} "$t/t.c" -o "$t/t" -ldnnl >/dev/null 2>&1 && "$t/t"; then echo 1; else echo 0; fi
rm -rf "$t"
