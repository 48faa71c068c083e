{
  # Built by the root package's install script (`node-gyp rebuild --directory native`); the
  # output, native/build/Release/mgpu_mmap.node, is found by src/shared/mapped-memory.ts.
  # When it is missing the project falls back to positional I/O on the slab.
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
    }
  ]
}
