# Writes WebDataset tar shards for the tests with Python's own tarfile module (no code of
# mgpu-train's): reads {"shards": [{"path", "format": "pax"|"gnu"|"ustar", "members": [{"name",
# "data": base64}]}]} as JSON on stdin and writes each shard's members in order.
import base64
import io
import json
import sys
import tarfile

FORMATS = {"pax": tarfile.PAX_FORMAT, "gnu": tarfile.GNU_FORMAT, "ustar": tarfile.USTAR_FORMAT}

for shard in json.load(sys.stdin)["shards"]:
    with tarfile.open(shard["path"], "w", format=FORMATS[shard.get("format", "pax")]) as tar:
        for m in shard["members"]:
            data = base64.b64decode(m["data"])
            info = tarfile.TarInfo(m["name"])
            info.size = len(data)
            info.mtime = 1700000000
            tar.addfile(info, io.BytesIO(data))
