import os
import time

import requests

MONITOR = os.environ.get("MONITOR_URL", "https://monitor.example.com/api/heartbeat")
SERVICE = os.environ.get("SERVICE_NAME", "billing-worker")


def beat():
    resp = requests.post(MONITOR, json={"service": SERVICE, "status": "ok"}, timeout=5)
    resp.raise_for_status()


if __name__ == "__main__":
    while True:
        beat()
        time.sleep(60)
