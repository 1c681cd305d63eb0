import { describe, expect, it } from 'vitest';
import { openPage } from './harness';

describe('smoke', () => {
  it('sends a page view', async () => {
    const page = openPage();
    await page.tick(5000);
    console.log(page.sent, page.errors, page.jar.getCookiesSync(page.window.location.href).map(String));
    expect(page.events()).toHaveLength(1);
  });
});
