"""Verify firmware chunks received from the update server."""
import base64

POLY = 0xEDB88320


def _table():
    tbl = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ POLY if c & 1 else c >> 1
        tbl.append(c)
    return tbl


_TABLE = _table()


def crc32(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def verify_chunk(b64_payload, expected):
    data = base64.b64decode(b64_payload)
    got = crc32(data)
    if got != expected:
        raise ValueError(f"crc mismatch: {got:08x} != {expected:08x}")
    return data


if __name__ == "__main__":
    sample = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj9AQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVpbXF1eXw=="
    print(len(verify_chunk(sample, 0x17F63937)), "bytes ok")
