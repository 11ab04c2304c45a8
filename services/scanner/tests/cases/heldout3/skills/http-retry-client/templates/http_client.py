import random
import time
from datetime import datetime, timezone

import requests
from dateutil import parser as dtparser

RETRY_STATUS = {429, 502, 503, 504}


class Client:
    def __init__(self, base_url, timeout=(3, 10), attempts=5):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.attempts = attempts
        self.session = requests.Session()

    def _sleep_for(self, resp, n):
        ra = resp.headers.get("Retry-After") if resp is not None else None
        if ra:
            if ra.isdigit():
                return int(ra)
            return max(0, (dtparser.parse(ra) - datetime.now(timezone.utc)).total_seconds())
        return min(30, 2 ** n) * random.uniform(0.5, 1.5)

    def request(self, method, path, idempotency_key=None, **kw):
        kw.setdefault("timeout", self.timeout)
        retryable = method.upper() in {"GET", "HEAD", "PUT", "DELETE"} or idempotency_key
        for n in range(self.attempts):
            resp = None
            try:
                resp = self.session.request(method, f"{self.base_url}{path}", **kw)
                if resp.status_code not in RETRY_STATUS or not retryable:
                    return resp
            except requests.ConnectionError:
                if not retryable:
                    raise
            time.sleep(self._sleep_for(resp, n))
        return resp

    def get(self, path, **kw):
        return self.request("GET", path, **kw)
