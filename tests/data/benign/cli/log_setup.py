import logging
import os

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"  # noqa: E501


def setup(level: str | None = None) -> None:
    logging.basicConfig(level=level or os.environ.get("LOG_LEVEL", "INFO"), format=LOG_FORMAT)
    logging.getLogger("urllib3").setLevel(logging.WARNING)  # noqa: F401
