/** Real Chromium for browser tests: Debian's `chromium` driven by playwright-core (no browser
 * download). Without the browser the tests skip locally, and fail under CI=true. */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

if (!haveChromium && process.env.CI)
  throw new Error(`Chromium not found at ${CHROMIUM}: CI must install it (apt-get install -y chromium)`);
if (!haveChromium) console.warn(`Chromium not found at ${CHROMIUM}: the browser tests are skipped (apt-get install -y chromium, or set CHROMIUM_PATH)`);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // Flags that keep Chromium from reaching out to the (closed) network on its own.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
