"""Verifies a Cairn attestation's DSSE envelope with securesystemslib, an implementation
Cairn did not write (the one in-toto's Python reference uses).

Reads JSON on stdin: {"envelope": {...}, "keys": [{"keyid": "...", "public": "<hex>"}]}.
Prints JSON: {"verified_by": [keyid...], "payload_type": "...", "statement": {...}} or
exits 1 with the verification error.
"""

import json
import sys

from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey

request = json.load(sys.stdin)
envelope = Envelope.from_dict(request["envelope"])
keys = [
    SSlibKey(keyid=k["keyid"], keytype="ed25519", scheme="ed25519", keyval={"public": k["public"]})
    for k in request["keys"]
]
try:
    accepted = envelope.verify(keys, 1)
except VerificationError as error:
    print(f"refused: {error}", file=sys.stderr)
    sys.exit(1)
print(
    json.dumps(
        {
            "verified_by": sorted(accepted),
            "payload_type": envelope.payload_type,
            "statement": json.loads(envelope.payload),
        }
    )
)
