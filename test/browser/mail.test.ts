/** "Manage your preferences", end to end in real Chromium: a visitor sends the demo's contact
 * form; its workflow's thanks email (caught by the platform, which sends no mail) shows in the
 * inspector's mail view; its preference link opens the companion's preference centre for that
 * address, where unsubscribing changes the address's status on the platform. Screenshots go to
 * test-results/ (git-ignored). */
import { describe, expect, it } from 'vitest';
import { haveChromium } from './chromium';
import { SHOTS, useSession, watchPage } from './session';
import { INSPECTOR_KEY } from './system';

const s = useSession();

describe.skipIf(!haveChromium)('the caught emails in Chromium', () => {
  it('shows the contact form\u2019s thanks email, whose preference link opens the preference centre, where unsubscribing works', async () => {
    const { sys, context, page, problems } = s;
    // A visitor sends the contact form.
    await page.goto(`${sys.siteUrl}/contact`);
    await page.locator('#contact-form input[name=email]').fill('hedy@acme.test');
    await page.locator('#contact-form input[name=firstname]').fill('Hedy');
    await page.locator('#contact-form input[name=svc-consent]').check();
    await page.waitForTimeout(1600); // faster than the form's minimum fill time is spam
    await page.locator('#contact-form button[type=submit], #contact-form input[type=submit]').click();
    await expect
      .poll(() => page.textContent('#contact-form'), { timeout: 15_000 })
      .toContain('Thanks! We will be in touch.');

    // The inspector's mail view: the list shows it once the workflow has sent it (it polls).
    await page.goto(`${sys.baseUrl}/_inspector/mail.html#key=${INSPECTOR_KEY}`);
    const item = page.locator('#messages li').filter({ hasText: 'to hedy@acme.test' });
    await item.waitFor({ timeout: 15_000 });
    expect(await item.textContent()).toContain('Thanks for getting in touch');
    expect(await item.textContent()).toContain('Thank contact-form leads');
    expect(await page.locator('#configure').isHidden()).toBe(true); // preference links are on
    await item.locator('button').click();
    await page.locator('#message h3').filter({ hasText: 'Thanks for getting in touch' }).waitFor();
    const headers = await page.locator('#message table.headers').textContent();
    expect(headers).toContain('"Acme Widgets (demo)" <hello@acme.test>');
    expect(headers).toContain('hedy@acme.test');

    // The HTML in a sandboxed frame (no script, no same origin), and the text with live links.
    const frame = page.locator('iframe.message-body');
    expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox');
    const email = page.frameLocator('iframe.message-body');
    await email.getByText('Hi Hedy,').waitFor();
    const manage = email.getByRole('link', { name: 'Manage your email preferences' });
    const href = (await manage.getAttribute('href'))!;
    expect(href.startsWith(`${sys.siteUrl}/svc/preferences?token=`)).toBe(true);
    expect(await page.locator('pre.message-text a').first().getAttribute('href')).toBe(href);
    await page.screenshot({ path: `${SHOTS}/inspector-mail.png` });

    // The link opens the preference centre for that address, in a tab of its own.
    const [centre] = await Promise.all([context.waitForEvent('page'), manage.click()]);
    const centreProblems: string[] = [];
    watchPage(centre, centreProblems);
    await centre.waitForLoadState();
    expect(centre.url()).toBe(href);
    await centre.getByText('Preferences for h•••@acme.test').waitFor({ timeout: 15_000 });
    expect((await sys.api('/email/public/v1/subscriptions/hedy%40acme.test')).json).toMatchObject({
      subscribed: true,
      unsubscribeFromPortal: false,
    });

    // Unsubscribing there changes the address's status on the platform.
    centre.once('dialog', (d) => d.accept());
    await centre.getByText('Unsubscribe from all emails').click();
    await centre.getByText('You are unsubscribed from all emails.').waitFor({ timeout: 15_000 });
    await centre.screenshot({ path: `${SHOTS}/preferences-from-email.png` });
    expect((await sys.api('/email/public/v1/subscriptions/hedy%40acme.test')).json).toMatchObject({
      subscribed: false,
      unsubscribeFromPortal: true,
    });

    expect(problems).toEqual([]);
    expect(centreProblems).toEqual([]);
  });

  it('runs no script of an email and loads nothing from elsewhere: the HTML stays in its sandbox', async () => {
    const { sys, page, problems } = s;
    const { services } = sys.platform;
    // A message as a hostile sender would write it (the platform's own template escapes what
    // contacts and campaigns say; this one goes into the store as it is).
    const html = `<!doctype html><body><p id="hello">Hello</p>
      <script>document.body.dataset.ran = 'script'; parent.document.title = 'pwned';</script>
      <img src="x" onerror="document.body.dataset.ran = 'onerror'">
      <img src="https://tracker.example/pixel.gif">
      <style>p { color: red }</style></body>`;
    await services.outbox.add(services.engine, 62515, {
      from: 'mallory@evil.test',
      to: 'victim@acme.test',
      subject: 'Hostile HTML',
      text: 'Hostile text <script>alert(1)</script>',
      html,
      campaignId: 1,
      workflowId: null,
      vid: null,
      preferenceLink: false,
      sentAt: Date.now(),
    });
    await page.goto(`${sys.baseUrl}/_inspector/mail.html#key=${INSPECTOR_KEY}`);
    await page.locator('#messages li').filter({ hasText: 'Hostile HTML' }).locator('button').click();
    const email = page.frameLocator('iframe.message-body');
    await email.locator('#hello').waitFor();
    expect(await email.locator('body').getAttribute('data-ran')).toBeNull();
    expect(await page.title()).toBe('svc platform mail');
    expect(await email.locator('#hello').evaluate((p) => getComputedStyle(p).color)).not.toBe('rgb(255, 0, 0)');
    // The text is text.
    expect(await page.locator('pre.message-text').textContent()).toBe('Hostile text <script>alert(1)</script>');
    // What Chromium says it refused: the script (sandbox), the handler, the image and the style (CSP).
    const refused = problems.filter((p) =>
      /Blocked script execution in 'about:srcdoc'|violates the following Content Security Policy directive/.test(p),
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(problems.filter((p) => !refused.includes(p) && !/Failed to load resource/.test(p))).toEqual([]);
  });
});
