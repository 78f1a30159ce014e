import os
import subprocess
import sys

key = os.path.expanduser("~/.ssh/id_ed25519")
if not os.path.exists(key):
    print("no key found; generating one")
    subprocess.run(["ssh-keygen", "-t", "ed25519", "-f", key, "-N", ""], check=True)

out = subprocess.run(["ssh-keygen", "-lf", key + ".pub"], capture_output=True, text=True)
print(out.stdout.strip() or out.stderr.strip(), file=sys.stderr)
