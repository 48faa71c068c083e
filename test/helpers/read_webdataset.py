# An independent WebDataset shard reader for the tests (shares no code with mgpu-train): opens
# each tar with Python's tarfile (which checks every header's checksum), checks that each member
# is a regular file with a POSIX ustar header (magic "ustar\0", version "00"), and prints JSON:
# per file, its members in order (name, size, sha256, and the text of a .cls member).
# Usage: python3 read_webdataset.py FILE...   (exit 1 with a message on any error)
import hashlib
import json
import sys
import tarfile


def read(path):
    members = []
    raw = open(path, 'rb').read()
    with tarfile.open(path, 'r:') as tar:
        for m in tar:
            header = raw[m.offset:m.offset + 512]
            if header[257:265] != b'ustar\x0000':
                raise ValueError('%s: member %s has no ustar header' % (path, m.name))
            if not m.isreg():
                raise ValueError('%s: member %s is not a regular file' % (path, m.name))
            data = tar.extractfile(m).read()
            entry = {'name': m.name, 'size': m.size, 'sha256': hashlib.sha256(data).hexdigest()}
            if m.name.endswith('.cls'):
                entry['text'] = data.decode('ascii')
            members.append(entry)
    return {'file': path, 'bytes': len(raw), 'members': members}


if __name__ == '__main__':
    try:
        print(json.dumps([read(p) for p in sys.argv[1:]]))
    except (ValueError, tarfile.TarError) as e:
        sys.stderr.write('read_webdataset: %s\n' % e)
        sys.exit(1)
