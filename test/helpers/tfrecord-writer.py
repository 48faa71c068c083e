# An independent TFRecord writer for the tests: shares no code with mgpu-train (CRC-32C bit by
# bit, the protobuf of tf.train.Example encoded by hand), so a framing or decoding bug cannot hide
# in both. Reads JSON on stdin: {"shards": [{"path": ..., "records": [record, ...]}]}, each record
# {"raw": "<base64>"} (its data as given) or {"features": {key: feature}}, each feature
# {"bytes": ["<base64>", ...]} | {"float": [...], "packed": bool} | {"int64": ["<integer>", ...], "packed": bool}.
import base64
import json
import struct
import sys


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def varint(v):
    v &= (1 << 64) - 1  # a negative int64 is its two's complement: ten bytes
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(no, wire, body):
    tag = varint((no << 3) | wire)
    return tag + (varint(len(body)) + body if wire == 2 else body)


def feature(f):
    if "bytes" in f:
        return field(1, 2, b"".join(field(1, 2, base64.b64decode(v)) for v in f["bytes"]))
    if "float" in f:
        vals = f["float"]
        if f.get("packed", True):
            body = field(1, 2, b"".join(struct.pack("<f", v) for v in vals))
        else:
            body = b"".join(field(1, 5, struct.pack("<f", v)) for v in vals)
        return field(2, 2, body)
    vals = f["int64"]
    if f.get("packed", True):
        body = field(1, 2, b"".join(varint(int(v)) for v in vals))
    else:
        body = b"".join(field(1, 0, varint(int(v))) for v in vals)
    return field(3, 2, body)


def example(features):
    entries = b"".join(field(1, 2, field(1, 2, k.encode()) + field(2, 2, feature(f))) for k, f in features.items())
    return field(1, 2, entries)


def frame(data):
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked(length)) + data + struct.pack("<I", masked(data))


def main():
    spec = json.load(sys.stdin)
    for shard in spec["shards"]:
        with open(shard["path"], "wb") as out:
            for rec in shard["records"]:
                data = base64.b64decode(rec["raw"]) if "raw" in rec else example(rec["features"])
                out.write(frame(data))


main()
