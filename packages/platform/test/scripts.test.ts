/** The platform serves the browser scripts itself (src/http/scripts.ts): tracker.js and forms.js
 * as built, and /js/{portalId}.js, the tracker with the portal and this platform's collector set.
 * In Chromium, the tracker README's script tag as written: test/browser/tracker-platform.test.ts. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

const built = (file: string) => readFileSync(new URL(file, import.meta.url), 'utf8');
let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t?.close());

describe('the browser scripts', () => {
  it('serves tracker.js and forms.js as built, cacheable and usable from any site', async () => {
    for (const [path, file] of [
      ['/tracker.js', '../../tracker/dist/tracker.js'],
      ['/forms.js', '../../forms/dist/forms.js'],
    ]) {
      const res = await fetch(`${t.baseUrl}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
      expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(await res.text()).toBe(built(file));
    }
  });

  it('serves /js/{portalId}.js: the tracker with the portal and the collector set, the page\u2019s own config still first', async () => {
    const portalId = t.portals[0].portalId;
    const res = await fetch(`${t.baseUrl}/js/${portalId}.js`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toBe(
      `window.svc=window.svc||{};window.svc.config=Object.assign({"portalId":"${portalId}","collector":"${t.baseUrl}/collect"},window.svc.config);\n${built('../../tracker/dist/tracker.js')}`,
    );
  });

  it('answers 404 naming the problem for an unknown portal or a name that is not a portal id', async () => {
    const unknown = await fetch(`${t.baseUrl}/js/999999.js`);
    expect([unknown.status, (await unknown.json()).message]).toEqual([404, 'portal 999999 does not exist']);
    const odd = await fetch(`${t.baseUrl}/js/tracker.js`);
    expect([odd.status, (await odd.json()).message]).toEqual([404, 'path.file: must be {portalId}.js']);
  });
});
