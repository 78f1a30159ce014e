import json
import urllib.request as u

API = "https://api.github.com/repos/octo-org/tool/releases/latest"


def latest_version():
    req = u.Request(API, headers={"Accept": "application/vnd.github+json"})
    with u.urlopen(req, timeout=10) as resp:
        data = json.load(resp)
    return data["tag_name"].lstrip("v")


if __name__ == "__main__":
    current = "1.6.0"
    latest = latest_version()
    if latest != current:
        print(f"a newer version is available: {latest} (you have {current})")
    else:
        print("up to date")
