import os
import subprocess
import sys


def run_pytest(args):
    env = os.environ.copy()
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("TZ", "UTC")
    proc = subprocess.run([sys.executable, "-m", "pytest", *args], env=env)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(run_pytest(sys.argv[1:]))
