/** Real Chromium for browser tests: Debian's `chromium` driven by playwright-core (no browser
 * download). Without the browser the tests skip locally, and fail under CI=true. */
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** A file we may run: a directory or a non-executable file at CHROMIUM_PATH counts as missing,
 * so that it is skipped (or refused under CI) here rather than failing inside launch(). */
function runnable(path: string) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
export const haveChromium = runnable(CHROMIUM);

if (!haveChromium && process.env.CI)
  throw new Error(`Chromium not found at ${CHROMIUM}: CI must install it (apt-get install -y chromium)`);
if (!haveChromium)
  console.warn(
    `Chromium not found at ${CHROMIUM}: the browser tests are skipped (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );

/** Flags that keep Chromium from reaching out to the (closed) network on its own. */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** Chromium with the user's "Send a Do Not Track request" setting on (a profile preference, so
 * `navigator.doNotTrack` is '1' and requests carry `DNT: 1`, as for a real user who set it), in a
 * throwaway profile that closing the context removes. */
export async function launchChromiumWithDoNotTrack(): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
  mkdirSync(join(profile, 'Default'));
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ enable_do_not_track: true }));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS });
  // Chromium may still be writing the profile as the context reports closed (ENOTEMPTY, an
  // uncaught error in CI): retry, and never throw from the handler; at worst a temp dir is left.
  context.on('close', () => {
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      // a profile left behind is only disk space
    }
  });
  return context;
}
