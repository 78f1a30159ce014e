import collections
import socket
import sys

counts = collections.Counter()
with open(sys.argv[1]) as log:
    for line in log:
        counts[line.split(" ", 1)[0]] += 1

for ip, n in counts.most_common(10):
    try:
        name = socket.gethostbyaddr(ip)[0]
    except OSError:
        name = "?"
    print(f"{n:6d}  {ip:15s}  {name}")
