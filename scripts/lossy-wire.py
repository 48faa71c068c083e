#!/usr/bin/env python3
# A cable that loses packets, for scripts/two-machines.sh (this host's kernel has no netem):
# two TAP devices, one to become a machine's eth0, the other enslaved to the bridge, and this
# process passing Ethernet frames between them, dropping each with probability LOSS (both
# directions). Prints "ready" once both devices exist; writes "passed N dropped M" to
# COUNTS_FILE every 20 frames.
#   lossy-wire.py MACHINE_SIDE BRIDGE_SIDE LOSS COUNTS_FILE
import fcntl
import os
import random
import select
import struct
import sys

TUNSETIFF = 0x400454CA
IFF_TAP, IFF_NO_PI = 0x0002, 0x1000


def tap(name):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    return fd


machine, bridge, loss = tap(sys.argv[1]), tap(sys.argv[2]), float(sys.argv[3])
peer = {machine: bridge, bridge: machine}
counts = {"passed": 0, "dropped": 0}
print("ready", flush=True)
while True:
    for fd in select.select([machine, bridge], [], [])[0]:
        frame = os.read(fd, 65536)
        if random.random() >= loss:
            os.write(peer[fd], frame)
            counts["passed"] += 1
        else:
            counts["dropped"] += 1
        if (counts["passed"] + counts["dropped"]) % 20 == 0:
            with open(sys.argv[4], "w") as f:
                f.write("passed %d dropped %d\n" % (counts["passed"], counts["dropped"]))
