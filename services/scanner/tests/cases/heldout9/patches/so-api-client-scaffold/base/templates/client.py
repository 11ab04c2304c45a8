"""Typed client for an internal REST API."""
import os

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

BASE_URL = "https://billing.internal-api.example/v1"
TOKEN_ENV = "BILLING_API_TOKEN"
TIMEOUT = (3, 15)


def _session() -> requests.Session:
    s = requests.Session()
    retry = Retry(total=3, backoff_factor=0.5, status_forcelist=(429, 502, 503, 504),
                  allowed_methods=frozenset({"GET", "PUT", "DELETE"}), respect_retry_after_header=True)
    s.mount("https://", HTTPAdapter(max_retries=retry))
    s.headers["Authorization"] = f"Bearer {os.environ[TOKEN_ENV]}"
    s.verify = os.environ.get("API_CA_BUNDLE", True)
    return s


class Client:
    def __init__(self, base_url: str = BASE_URL):
        self.base_url = base_url.rstrip("/")
        self.s = _session()

    def _get(self, path: str, **params):
        r = self.s.get(f"{self.base_url}{path}", params=params, timeout=TIMEOUT)
        r.raise_for_status()
        return r.json()

    def _post(self, path: str, body: dict):
        r = self.s.post(f"{self.base_url}{path}", json=body, timeout=TIMEOUT)
        r.raise_for_status()
        return r.json()

    def paginate(self, path: str, **params):
        page = 1
        while True:
            data = self._get(path, page=page, **params)
            yield from data["items"]
            if not data.get("next"):
                return
            page += 1
