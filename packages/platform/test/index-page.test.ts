/** The root of each server answers a small page (the addresses `npm start` and `svc-platform`
 * print are opened by people): {base_url}/ names the API, the OpenAPI document, the inspector and
 * the forms address, each of which answers; {forms_url}/ says what it takes and links back. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
let off: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ inspectorKey: 'inspector-key-of-the-test-0123' });
  off = await startPlatform();
});
afterAll(async () => {
  await t?.close();
  await off?.close();
});

const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);

describe('the root pages', () => {
  it('{base_url}/ links the OpenAPI document, the inspector (and its mail view) and the forms address, and each answers', async () => {
    const res = await fetch(`${t.baseUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('<title>svc platform</title>');
    expect(html).toContain(`<code>${t.baseUrl}</code>`);
    expect(hrefs(html)).toEqual([
      `${t.baseUrl}/openapi.json`,
      `${t.baseUrl}/_inspector/`,
      `${t.baseUrl}/_inspector/mail.html`,
      `${t.formsUrl}/`,
    ]);
    for (const href of hrefs(html)) expect((await fetch(href)).status, href).toBe(200);
    // The key is never on the page: whoever has it reads every portal.
    expect(html).not.toContain('inspector-key-of-the-test-0123');
  });

  it('says the inspector is off when it is', async () => {
    const html = await (await fetch(`${off.baseUrl}/`)).text();
    expect(html).toContain('Inspector: off');
    expect(hrefs(html)).not.toContain(`${off.baseUrl}/_inspector/`);
  });

  it('{forms_url}/ names the submission path and links back to the API', async () => {
    const res = await fetch(`${t.formsUrl}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('POST /uploads/form/v2/:portal_id/:form_guid');
    expect(hrefs(html)).toEqual([`${t.baseUrl}/`]);
  });

  it('leaves other unknown paths as they were: a JSON 404', async () => {
    const res = await fetch(`${t.baseUrl}/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/json/);
  });
});
