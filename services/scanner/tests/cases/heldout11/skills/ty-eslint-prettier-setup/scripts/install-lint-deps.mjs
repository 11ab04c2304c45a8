#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const { devDependencies } = JSON.parse(readFileSync(join(here, '..', 'config', 'lint-packages.json'), 'utf8'));
const specs = Object.entries(devDependencies).map(([name, v]) => `${name}@${v}`);

const pm = existsSync('pnpm-lock.yaml') ? 'pnpm' : existsSync('yarn.lock') ? 'yarn' : 'npm';
const args = pm === 'npm' ? ['install', '--save-dev', '--save-exact', ...specs]
          : pm === 'pnpm' ? ['add', '-D', '-E', ...specs]
          : ['add', '-D', '-E', ...specs];

console.log(`${pm} ${args.join(' ')}`);
execFileSync(pm, args, { stdio: 'inherit' });
