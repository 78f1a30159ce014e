import base64
import json
import subprocess


def read_secret(name, namespace="default"):
    out = subprocess.run(
        ["kubectl", "get", "secret", name, "-n", namespace, "-o", "json"],
        check=True, capture_output=True, text=True,
    ).stdout
    data = json.loads(out).get("data", {})
    return {k: base64.b64decode(v).decode() for k, v in data.items()}


if __name__ == "__main__":
    print(sorted(read_secret("app-config")))
