# TEACHING FILE — intentionally vulnerable. Do not import or deploy.
import os
import pickle
import subprocess

import requests
import yaml

BASE = "/srv/app/uploads"


def ping(host):
    return subprocess.run(f"ping -c1 {host}", shell=True, capture_output=True).stdout


def load_session(blob):
    return pickle.loads(blob)


def fetch_preview(user_url):
    return requests.get(user_url, timeout=5).text[:500]


def read_upload(name):
    with open(os.path.join(BASE, name)) as fh:
        return fh.read()


def parse_config(body):
    return yaml.load(body, Loader=yaml.Loader)
