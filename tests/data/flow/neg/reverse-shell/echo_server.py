import socketserver


class EchoHandler(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            self.wfile.write(line)


if __name__ == "__main__":
    with socketserver.ThreadingTCPServer(("127.0.0.1", 9999), EchoHandler) as srv:
        print("listening on 127.0.0.1:9999")
        srv.serve_forever()
