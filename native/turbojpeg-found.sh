#!/bin/sh
# Prints 1 when a C program using TurboJPEG (libjpeg-turbo's API; Debian: libturbojpeg0-dev,
# installed by scripts/ci/install-turbojpeg.sh) compiles and links here, else 0: binding.gyp
# builds the mgpu_jpeg addon only then, so a machine without it still builds the other addons
# (and decodes JPEGs with sharp).
t=$(mktemp -d) || { echo 0; exit 0; }
printf '#include <turbojpeg.h>\nint main(void) { return tjInitDecompress() == 0; }\n' > "$t/t.c"
if ${CC:-cc} "$t/t.c" -o "$t/t" -lturbojpeg >/dev/null 2>&1; then echo 1; else echo 0; fi
rm -rf "$t"
