#!/usr/bin/env python3
"""slow_request.py - one HTTP request whose body is held back until told.

usage: slow_request.py PORT METHOD PATH TOKEN BODYFILE DIR

Sends the request line and headers to 127.0.0.1:PORT with
"Expect: 100-continue" and waits for the gate's interim answer: the gate
sends "100 Continue" only once it has checked the Host, the route, the token
and its role (router.c's admit), so from then on the request is past its
authentication. It then creates DIR/admitted, waits (at most 20 s) for
DIR/go to exist, sends the body and writes the status code of the final
answer to DIR/status and its body to DIR/body. When the gate answers at once
instead of "100 Continue", that answer is written the same way (and
DIR/admitted is never made). Exit 0 when an answer was written, 1 otherwise.

Used by the e2e suites to change the world (revoke the token, let it expire)
between the moment a request was admitted and the moment its decision is
committed, without timing: the test waits for DIR/admitted, acts, then
creates DIR/go.
"""
import os
import socket
import sys
import time


def read_answer(s, got):
    """Reads one final answer (skipping 1xx) from s; (status, body)."""
    while True:
        while b"\r\n\r\n" not in got:
            chunk = s.recv(65536)
            if not chunk:
                raise EOFError("connection closed before an answer")
            got += chunk
        head, rest = got.split(b"\r\n\r\n", 1)
        status = int(head.split(b" ", 2)[1])
        if 100 <= status < 200:
            return status, rest
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v.strip())
        while len(rest) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            rest += chunk
        return status, rest[:length]


def main():
    port, method, path, token, bodyfile, d = sys.argv[1:7]
    body = open(bodyfile, "rb").read()
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=20)
    s.sendall(("%s %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n"
               "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
               "Content-Length: %d\r\nExpect: 100-continue\r\n\r\n" %
               (method, path, port, token, len(body))).encode())
    status, rest = read_answer(s, b"")
    if status == 100:
        open(os.path.join(d, "admitted"), "w").close()
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(d, "go")):
            if time.monotonic() > deadline:
                print("slow_request: no %s/go within 20 s" % d,
                      file=sys.stderr)
                return 1
            time.sleep(0.02)
        s.sendall(body)
        status, rest = read_answer(s, rest)
    open(os.path.join(d, "body"), "wb").write(rest)
    open(os.path.join(d, "status"), "w").write("%d\n" % status)
    s.close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, EOFError, ValueError, IndexError) as e:
        print("slow_request: %s" % e, file=sys.stderr)
        sys.exit(1)
