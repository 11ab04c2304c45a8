#!/usr/bin/env python3
"""Decode a JWT locally (no network unless --jwks is given)."""
import argparse
import base64
import datetime as dt
import json


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def when(ts):
    t = dt.datetime.fromtimestamp(ts, dt.timezone.utc)
    delta = t - dt.datetime.now(dt.timezone.utc)
    return f"{t.isoformat()} ({'in ' if delta.total_seconds() > 0 else ''}{abs(int(delta.total_seconds()))}s{'' if delta.total_seconds() > 0 else ' ago'})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("token")
    ap.add_argument("--jwks")
    a = ap.parse_args()
    h, p, sig = a.token.split(".")
    header, claims = json.loads(b64d(h)), json.loads(b64d(p))
    print("header:", json.dumps(header, indent=2))
    print("claims:", json.dumps(claims, indent=2))
    for k in ("iat", "nbf", "exp"):
        if k in claims:
            print(f"{k}: {when(claims[k])}")
    if "exp" not in claims:
        print("warning: no exp claim")
    if header.get("alg", "").lower() == "none":
        print("DANGER: alg=none token")
    if a.jwks:
        import jwt  # PyJWT
        key = jwt.PyJWKClient(a.jwks).get_signing_key_from_jwt(a.token)
        try:
            jwt.decode(a.token, key.key, algorithms=[header["alg"]], options={"verify_aud": False})
            print("signature: valid")
        except jwt.PyJWTError as e:
            print("signature:", e)


if __name__ == "__main__":
    main()
