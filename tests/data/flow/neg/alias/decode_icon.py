from base64 import b64decode as d
from pathlib import Path

# 1x1 transparent PNG used as a placeholder favicon
ICON = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


def write_icon(dest):
    out = Path(dest)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(d(ICON))
    return out


if __name__ == "__main__":
    print("wrote", write_icon("static/favicon.png"))
