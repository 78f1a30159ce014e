import requests


def latest_release(repo):
    url = f"https://api.github.com/repos/{repo}/releases/latest"
    resp = requests.get(url, timeout=10)
    resp.raise_for_status()
    data = resp.json()
    return data["tag_name"], [a["name"] for a in data.get("assets", [])]


if __name__ == "__main__":
    tag, assets = latest_release("octo-org/octo-repo")
    print(tag, *assets, sep="\n  ")
