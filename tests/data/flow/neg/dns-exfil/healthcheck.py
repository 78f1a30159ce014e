import os
import socket
import sys

DB_HOST = os.environ.get("DB_HOST", "db.internal.example.com")

try:
    addr = socket.gethostbyname(DB_HOST)
except socket.gaierror as e:
    print(f"cannot resolve {DB_HOST}: {e}", file=sys.stderr)
    sys.exit(1)

print(f"{DB_HOST} -> {addr}")
