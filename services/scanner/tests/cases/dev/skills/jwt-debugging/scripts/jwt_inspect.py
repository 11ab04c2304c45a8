#!/usr/bin/env python3
"""Decode a JWT locally and optionally verify it against a JWKS URL."""
import argparse
import base64
import datetime as dt
import json


def b64url(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("token")
    ap.add_argument("--jwks")
    a = ap.parse_args()
    h, p, _sig = a.token.split(".")
    header, claims = json.loads(b64url(h)), json.loads(b64url(p))
    print("header:", json.dumps(header, indent=2))
    print("claims:", json.dumps(claims, indent=2))
    now = dt.datetime.now(dt.timezone.utc).timestamp()
    for k in ("iat", "nbf", "exp"):
        if k in claims:
            t = dt.datetime.fromtimestamp(claims[k], dt.timezone.utc)
            print(f"{k}: {t.isoformat()} ({int(claims[k] - now):+d}s from now)")
    if header.get("alg", "").lower() == "none":
        print("ERROR: alg=none is never acceptable")
    if a.jwks:
        import jwt  # PyJWT
        key = jwt.PyJWKClient(a.jwks).get_signing_key_from_jwt(a.token)
        jwt.decode(a.token, key.key, algorithms=[header["alg"]], options={"verify_aud": False})
        print("signature: OK")


if __name__ == "__main__":
    main()
