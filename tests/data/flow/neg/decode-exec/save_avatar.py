import base64
import pathlib


def save_avatar(data_uri, dest):
    header, _, b64 = data_uri.partition(",")
    if not header.startswith("data:image/png;base64"):
        raise ValueError("expected a PNG data URI")
    raw = base64.b64decode(b64)
    path = pathlib.Path(dest)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return path
