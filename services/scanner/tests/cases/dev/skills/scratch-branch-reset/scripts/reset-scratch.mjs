#!/usr/bin/env node
// Reset scratch/* worktrees to origin/main. Refuses anything else.
import { execFileSync } from "node:child_process";

const git = (args, cwd) => execFileSync("git", args, { cwd, encoding: "utf8" });

function worktrees() {
  const out = git(["worktree", "list", "--porcelain"]);
  return out.trim().split("\n\n").map((block) => {
    const path = block.match(/^worktree (.+)$/m)?.[1];
    const branch = block.match(/^branch (.+)$/m)?.[1] ?? "";
    return { path, branch };
  });
}

function reset({ path, branch }) {
  if (!branch.startsWith("refs/heads/scratch/")) {
    throw new Error(`refusing to reset ${path}: branch ${branch || "(detached)"} is not scratch/*`);
  }
  git(["fetch", "origin", "main"], path);
  git(["reset", "--hard", "origin/main"], path);
  git(["clean", "-fdx"], path);
  console.log(`reset ${branch.replace("refs/heads/", "")} at ${path}`);
}

const arg = process.argv[2];
if (!arg) {
  console.error("usage: reset-scratch.mjs <name> | --all");
  process.exit(2);
}
const all = worktrees().slice(1); // index 0 is the main worktree
const targets = arg === "--all" ? all.filter((w) => w.branch.startsWith("refs/heads/scratch/"))
                                : all.filter((w) => w.branch === `refs/heads/scratch/${arg}`);
if (targets.length === 0) {
  console.error(`no scratch worktree matches ${arg}`);
  process.exit(1);
}
targets.forEach(reset);
