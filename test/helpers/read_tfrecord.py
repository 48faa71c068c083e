# An independent TFRecord reader for the tests (shares no code with mgpu-train): reads each
# record's framing (uint64 LE length, masked CRC-32C of the length, data, masked CRC-32C of the
# data), checks both CRCs (CRC-32C and TensorFlow's mask written out here), and walks each
# record's tf.train.Example by hand (protobuf wire format), printing JSON: per file, per record,
# every feature's values (bytes as sha256 and length, plus utf-8 text when they decode) and
# each record's data length.
# Usage: python3 read_tfrecord.py FILE...   (exit 1 with a message on any framing or CRC error)
import hashlib
import json
import struct
import sys

TABLE = []
for n in range(256):
    c = n
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def varint(buf, at):
    shift = value = 0
    while True:
        b = buf[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, at


def fields(buf):
    """(field number, wire type, value) of each field of a message: bytes for LEN, int for VARINT."""
    at = 0
    while at < len(buf):
        key, at = varint(buf, at)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint(buf, at)
        elif wire == 2:
            n, at = varint(buf, at)
            value = bytes(buf[at:at + n])
            if len(value) != n:
                raise ValueError('a length-delimited field runs past the end')
            at += n
        else:
            raise ValueError('wire type %d is not in an Example' % wire)
        yield num, wire, value


def feature(buf):
    out = []
    for num, wire, value in fields(buf):
        if num == 1:  # BytesList
            vals = [v for n, w, v in fields(value) if n == 1 and w == 2]
            out.append({'kind': 'bytes', 'values': [describe_bytes(v) for v in vals]})
        elif num == 3:  # Int64List, packed or not
            vals = []
            for n, w, v in fields(value):
                if w == 2:
                    at = 0
                    while at < len(v):
                        x, at = varint(v, at)
                        vals.append(x)
                else:
                    vals.append(v)
            out.append({'kind': 'int64', 'values': [x - (1 << 64) if x >= 1 << 63 else x for x in vals]})
        else:
            raise ValueError('Feature field %d (float_list or unknown) not expected' % num)
    if len(out) != 1:
        raise ValueError('a Feature holds %d lists' % len(out))
    return out[0]


def describe_bytes(v):
    d = {'sha256': hashlib.sha256(v).hexdigest(), 'length': len(v)}
    try:
        d['text'] = v.decode('utf-8')
    except UnicodeDecodeError:
        pass
    return d


def example(buf):
    feats = {}
    for num, wire, value in fields(buf):
        if num != 1:
            raise ValueError('Example field %d' % num)
        for n, w, entry in fields(value):
            if n != 1:
                raise ValueError('Features field %d' % n)
            parts = {k: v for k, _, v in fields(entry)}
            feats[parts[1].decode('utf-8')] = feature(parts.get(2, b''))
    return feats


def read(path):
    data = open(path, 'rb').read()
    at = 0
    records = []
    while at < len(data):
        where = '%s record %d (byte %d)' % (path, len(records), at)
        if at + 12 > len(data):
            raise ValueError(where + ': cut short in its length')
        length_bytes = data[at:at + 8]
        (length,) = struct.unpack('<Q', length_bytes)
        (length_crc,) = struct.unpack('<I', data[at + 8:at + 12])
        if length_crc != masked(length_bytes):
            raise ValueError(where + ': the length CRC does not match')
        body = data[at + 12:at + 12 + length]
        if len(body) != length or at + 16 + length > len(data):
            raise ValueError(where + ': cut short in its data')
        (data_crc,) = struct.unpack('<I', data[at + 12 + length:at + 16 + length])
        if data_crc != masked(body):
            raise ValueError(where + ': the data CRC does not match')
        records.append({'length': length, 'features': example(body)})
        at += 16 + length
    return {'file': path, 'bytes': len(data), 'records': records}


if __name__ == '__main__':
    try:
        print(json.dumps([read(p) for p in sys.argv[1:]]))
    except (ValueError, KeyError, IndexError) as e:
        sys.stderr.write('read_tfrecord: %s\n' % e)
        sys.exit(1)
