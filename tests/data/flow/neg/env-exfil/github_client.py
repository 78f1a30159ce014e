import os

import requests

API = "https://api.github.com"


def list_issues(repo):
    token = os.environ.get("GITHUB_TOKEN")
    headers = {"Accept": "application/vnd.github+json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    resp = requests.get(f"{API}/repos/{repo}/issues", headers=headers, timeout=10)
    resp.raise_for_status()
    return [i["title"] for i in resp.json()]


if __name__ == "__main__":
    for title in list_issues("octo-org/octo-repo"):
        print(title)
