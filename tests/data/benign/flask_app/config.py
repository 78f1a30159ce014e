import os
from dataclasses import dataclass

from dotenv import load_dotenv

# Values come from the environment; a local .env is loaded for development.
load_dotenv()


@dataclass
class Settings:
    version: str
    billing_url: str
    billing_token: str
    debug: bool = False

    @classmethod
    def from_env(cls) -> "Settings":
        return cls(
            version=os.environ.get("APP_VERSION", "dev"),
            billing_url=os.environ.get("BILLING_URL", "http://localhost:8081"),
            billing_token=os.environ.get("BILLING_TOKEN", ""),
            debug=os.environ.get("FLASK_DEBUG") == "1",
        )
