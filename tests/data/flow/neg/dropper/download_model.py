import pathlib

import requests

URL = "https://data.example.com/datasets/iris.csv"


def download(url, dest):
    dest = pathlib.Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with requests.get(url, stream=True, timeout=30) as r:
        r.raise_for_status()
        with dest.open("wb") as fh:
            for chunk in r.iter_content(65536):
                fh.write(chunk)
    return dest


if __name__ == "__main__":
    print(download(URL, "data/iris.csv"))
