#!/usr/bin/env python3
"""Print the OpenAPI document of an ASGI app as YAML: export_openapi.py module:attr"""
import importlib
import sys

import yaml

mod, attr = sys.argv[1].split(":")
app = getattr(importlib.import_module(mod), attr)
print(yaml.safe_dump(app.openapi(), sort_keys=False, allow_unicode=True))
