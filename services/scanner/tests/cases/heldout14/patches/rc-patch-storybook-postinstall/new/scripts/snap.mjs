#!/usr/bin/env node
// Capture or diff Storybook story screenshots.
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const get = (f) => { const i = args.indexOf(f); return i >= 0 ? args[i + 1] : undefined; };

if (args.includes("--diff")) {
  const [a, b] = [args[args.indexOf("--diff") + 1], args[args.indexOf("--diff") + 2]];
  const { PNG } = await import("pngjs");
  const pixelmatch = (await import("pixelmatch")).default;
  const rows = [];
  for (const f of fs.readdirSync(b)) {
    if (!fs.existsSync(path.join(a, f))) { rows.push(`<li>${f}: new</li>`); continue; }
    const A = PNG.sync.read(fs.readFileSync(path.join(a, f)));
    const B = PNG.sync.read(fs.readFileSync(path.join(b, f)));
    if (A.width !== B.width || A.height !== B.height) { rows.push(`<li>${f}: size changed</li>`); continue; }
    const n = pixelmatch(A.data, B.data, null, A.width, A.height, { threshold: 0.1 });
    if (n) rows.push(`<li>${f}: ${n}px</li>`);
  }
  fs.writeFileSync("diff-report.html", `<ul>${rows.join("")}</ul>`);
  console.log(`${rows.length} changed stories -> diff-report.html`);
} else {
  const { chromium } = await import("@playwright/test");
  const dir = get("--static"), out = get("--out");
  fs.mkdirSync(out, { recursive: true });
  const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8"));
  const browser = await chromium.launch();
  const page = await browser.newPage({ reducedMotion: "reduce" });
  for (const id of Object.keys(index.entries)) {
    if (index.entries[id].type !== "story") continue;
    await page.goto(`file://${path.resolve(dir)}/iframe.html?id=${id}`);
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: path.join(out, `${id}.png`) });
  }
  await browser.close();
}
