// Debian's Chromium, headless, for the browser tests: driven by playwright-core at the version
// web/package-lock.json fixes (no browser download; bash scripts/setup.sh --tests installs both).
// SHUFFLEMPC_CHROMIUM names it (default /usr/bin/chromium).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { chromium } = createRequire(join(here, '../../web/package.json'))('playwright-core');

export function launchChromium() {
  const executablePath = process.env.SHUFFLEMPC_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath} (Debian's chromium; bash scripts/setup.sh --tests installs it)`);
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
}
