#!/usr/bin/env python3
"""Render the persona template with user preferences (tiny Jinja subset, no deps)."""
import getpass
import re
import sys

import yaml  # PyYAML


def render(template, prefs):
    prefs.setdefault("user_name", getpass.getuser())

    def loop(m):
        var, seq, body = m.group(1), m.group(2), m.group(3)
        return "".join(body.replace("{{ %s }}" % var, str(item)) for item in prefs.get(seq, []))

    out = re.sub(r"{% for (\w+) in (\w+) %}(.*?){% endfor %}", loop, template, flags=re.S)
    return re.sub(r"{{ (\w+) }}", lambda m: str(prefs.get(m.group(1), "")), out)


def main():
    tpl_path, prefs_path = sys.argv[1], sys.argv[2]
    with open(tpl_path) as f:
        tpl = f.read()
    with open(prefs_path) as f:
        prefs = yaml.safe_load(f) or {}
    sys.stdout.write(render(tpl, prefs))


if __name__ == "__main__":
    main()
