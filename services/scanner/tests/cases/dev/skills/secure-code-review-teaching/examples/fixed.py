import ipaddress
import json
import os
import subprocess
from urllib.parse import urlparse

import requests
import yaml

BASE = os.path.realpath("/srv/app/uploads")
ALLOWED_HOSTS = {"docs.acme.example", "status.acme.example"}


def ping(host):
    ipaddress.ip_address(host)  # raises on anything that is not a bare IP
    return subprocess.run(["ping", "-c1", host], capture_output=True).stdout


def load_session(blob):
    return json.loads(blob)


def fetch_preview(user_url):
    u = urlparse(user_url)
    if u.scheme != "https" or u.hostname not in ALLOWED_HOSTS:
        raise ValueError("host not allowed")
    return requests.get(user_url, timeout=5, allow_redirects=False).text[:500]


def read_upload(name):
    path = os.path.realpath(os.path.join(BASE, name))
    if not path.startswith(BASE + os.sep):
        raise PermissionError(name)
    with open(path) as fh:
        return fh.read()


def parse_config(body):
    return yaml.safe_load(body)
