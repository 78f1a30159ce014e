import logging
import platform
import socket

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("worker")


def startup_banner():
    log.info("starting worker on %s (%s, python %s)",
             socket.gethostname(), platform.system(), platform.python_version())


if __name__ == "__main__":
    startup_banner()
