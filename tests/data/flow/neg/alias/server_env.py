import os
import subprocess as sp
import sys

env = os.environ
port = int(env.get("PORT", "8000"))
workers = int(env.get("WEB_CONCURRENCY", "2"))


def start_worker():
    child_env = env.copy()
    child_env["PYTHONUNBUFFERED"] = "1"
    return sp.Popen([sys.executable, "worker.py"], env=child_env)


if __name__ == "__main__":
    procs = [start_worker() for _ in range(workers)]
    print(f"listening on :{port} with {workers} workers")
    sp.run([sys.executable, "-m", "http.server", str(port)])
    for p in procs:
        p.terminate()
