/** Hostile definitions: labels, help, options and messages are text; rich text passes the
 * allow-list; redirects must be http(s). Every payload would set `window.pwned` if it ran. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FormDefinition } from '../src/types';
import { faultServer, openPage, type Page } from './harness';

let page: Page;
let forms: Awaited<ReturnType<typeof faultServer>>;
beforeAll(async () => {
  // Accepts every submission, like the platform would.
  forms = await faultServer((_req, res) => void res.writeHead(204, { 'access-control-allow-origin': '*' }).end());
});
afterAll(() => forms.close());
afterEach(() => page?.close());

const IMG = '<img src=x onerror="window.pwned=1">';
const SCRIPT = '<script>window.pwned=2</script>';
const RICH = [
  SCRIPT,
  IMG,
  '<a href="javascript:window.pwned=3">js link</a>',
  '<a href=" JaVaScRiPt:window.pwned=4">spaced js link</a>',
  '<a href="data:text/html,<script>window.pwned=5</script>">data link</a>',
  '<svg onload="window.pwned=6"><circle/></svg>',
  '<iframe srcdoc="<script>parent.pwned=7</script>"></iframe>',
  '<p onmouseover="window.pwned=8" style="color:red" class="x">kept text</p>',
  '<form action="javascript:window.pwned=9"><button formaction="javascript:window.pwned=10">b</button></form>',
  '<style>body{display:none}</style><math><mi xlink:href="javascript:window.pwned=11">m</mi></math>',
  '<a href="https://ok.example/" onclick="window.pwned=12" target="_top">safe link</a> <a href="mailto:hi@example.com">mail</a>',
  '<object data="javascript:window.pwned=13"></object><embed src="javascript:window.pwned=14">',
  '<div><b>bold <i>nested</i></b></div><!-- comment --><noscript><img src=x onerror="window.pwned=15"></noscript>',
].join('');

const hostile: FormDefinition = {
  guid: 'hostile',
  cssClass: '"><script>window.pwned=20</script>',
  submitText: SCRIPT,
  redirect: 'javascript:window.pwned=21',
  inlineMessage: `<p>Thanks</p>${IMG}${SCRIPT}<a href="javascript:window.pwned=22">x</a>`,
  formFieldGroups: [
    { fields: [], richText: { content: RICH } },
    {
      fields: [
        {
          name: 'email',
          label: IMG,
          fieldType: 'email',
          description: SCRIPT,
          placeholder: '" onfocus="window.pwned=23',
          required: true,
        },
        {
          name: 'x" onfocus="window.pwned=24',
          label: 'Weird name',
          fieldType: 'text',
          defaultValue: '"><script>window.pwned=25</script>',
        },
        {
          name: 'pick',
          label: 'Pick',
          fieldType: 'select',
          unselectedLabel: IMG,
          options: [{ label: SCRIPT, value: '"><img src=x onerror="window.pwned=26">' }],
        },
        { name: 'radio', label: 'Radio', fieldType: 'radio', options: [{ label: IMG, value: 'a' }] },
        {
          name: 'notes',
          label: 'Notes',
          fieldType: 'textarea',
          defaultValue: '</textarea><script>window.pwned=27</script>',
        },
      ],
    },
  ],
};

const pwned = () => (page.window as unknown as { pwned?: number }).pwned;

async function render(extra: object = {}) {
  page = openPage({ attrs: { 'forms-url': forms.url }, body: '<div id="f"></div>' });
  return (await page.create({ portalId: 1, formId: 'hostile', target: '#f', definition: hostile, ...extra }))!;
}

/** Every element and attribute under `root` that could run code or load something. */
function dangerous(root: Element) {
  const found: string[] = [];
  for (const el of [root, ...Array.from(root.querySelectorAll('*'))]) {
    if (/^(SCRIPT|IFRAME|OBJECT|EMBED|SVG|MATH|STYLE|IMG)$/i.test(el.tagName)) found.push(el.tagName);
    for (const a of Array.from(el.attributes)) {
      if (/^on/i.test(a.name) || a.name == 'style' || a.name == 'srcdoc' || /action$/i.test(a.name))
        found.push(`${el.tagName}[${a.name}]`);
      if ((a.name == 'href' || a.name == 'src') && !/^(https?:|mailto:)/.test(a.value))
        found.push(`${el.tagName}[${a.name}=${a.value}]`);
    }
  }
  return found;
}

describe('hostile definitions', () => {
  it('renders every text as text and rich text through the allow-list; nothing runs', async () => {
    const form = await render();
    expect(dangerous(page.$('#f'))).toEqual([]);
    // The texts are there, literally.
    expect(page.$$('label').some((l) => l.textContent == '<img src=x onerror="window.pwned=1">*')).toBe(true);
    expect(form.querySelector('.svc-help')!.textContent).toBe(SCRIPT);
    expect(form.querySelector('button')!.textContent).toBe(SCRIPT);
    expect(form.querySelector('select option')!.textContent).toBe(IMG);
    expect(form.querySelector<HTMLTextAreaElement>('textarea')!.value).toBe(
      '</textarea><script>window.pwned=27</script>',
    );
    // Rich text keeps its safe parts only.
    const rich = form.querySelector('.svc-richtext')!;
    expect(Array.from(rich.querySelectorAll('a'), (a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['js link', null],
      ['spaced js link', null],
      ['data link', null],
      ['safe link', 'https://ok.example/'],
      ['mail', 'mailto:hi@example.com'],
    ]);
    expect(rich.querySelector('p')!.outerHTML).toBe('<p>kept text</p>');
    expect(rich.innerHTML).toContain('<div><b>bold <i>nested</i></b></div>');
    expect(rich.textContent).not.toContain('window.pwned');

    // Interact with everything a visitor could.
    for (const el of Array.from(page.$('#f').querySelectorAll<HTMLElement>('*'))) {
      el.focus();
      el.dispatchEvent(new page.window.MouseEvent('mouseover', { bubbles: true }));
      if (el.tagName == 'A') el.click();
    }
    await page.settle();
    expect(pwned()).toBeUndefined();
    expect(page.errors.filter((e) => !/Not implemented: navigation/.test(e))).toEqual([]);
  });

  it('never follows a javascript: redirect; the sanitised thank-you message shows instead', async () => {
    const form = await render();
    const email = form.querySelector<HTMLInputElement>('input[name=email]')!;
    page.type(email, 'safe@example.com');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    await page.settle();
    expect(pwned()).toBeUndefined();
    expect(page.errors).toEqual([]);
    const thanks = page.$('.svc-submitted-message');
    expect(thanks.innerHTML).toBe('<p>Thanks</p><a>x</a>');
    // The context never carries an unsafe redirect either.
    page.close();
    const sent = await render({ redirectUrl: 'javascript:window.pwned=30' });
    page.type(sent.querySelector<HTMLInputElement>('input[name=email]')!, 'safe@example.com');
    await page.submit(sent);
    expect(page.submissions()[0].context.redirectUrl).toBeUndefined();
    expect(pwned()).toBeUndefined();
  });

  it("issue 19's fields: consent texts through the allow-list, labels, step titles, queued fields and page values as text", async () => {
    const definition: FormDefinition = {
      guid: 'hostile',
      formFieldGroups: [
        { fields: [{ name: 'email', label: 'Email', fieldType: 'email' }] },
        { fields: [{ name: 'src', label: 'Source', queryParam: 'utm_source', cookieName: '"]; window.pwned=40; //' }] },
      ],
      steps: [
        { title: SCRIPT, groups: 1 },
        { title: IMG, groups: 'x' as unknown as number },
      ],
      queuedFields: [{ name: 'q', label: IMG }],
      legalConsentOptions: {
        consentToProcessText: RICH,
        consentToProcessCheckboxLabel: SCRIPT,
        communicationConsentText: RICH,
        communicationsCheckboxes: [
          { subscriptionTypeId: '"><img src=x onerror="window.pwned=41">' as unknown as number, label: IMG },
        ],
        privacyText: RICH,
      },
    };
    page = openPage({
      attrs: { 'forms-url': forms.url },
      body: '<div id="f"></div>',
      url: `https://www.example.com/contact?utm_source=${encodeURIComponent(SCRIPT)}`,
      cookies: ['__proto__=x'],
    });
    const form = (await page.create({ portalId: 1, formId: 'hostile', target: '#f', definition }))!;
    expect(dangerous(page.$('#f'))).toEqual([]);
    expect(Array.from(form.querySelectorAll('.svc-step > legend'), (l) => l.textContent)).toEqual([SCRIPT, IMG]);
    expect(form.querySelector<HTMLInputElement>('input[name=src]')!.value).toBe(SCRIPT);
    expect(page.$$('label').some((l) => l.textContent == `${SCRIPT}*`)).toBe(true);
    for (const el of Array.from(page.$('#f').querySelectorAll<HTMLElement>('*'))) {
      el.focus();
      if (el.tagName == 'A') el.click();
    }
    await page.settle();
    expect(pwned()).toBeUndefined();
    expect(page.errors.filter((e) => !/Not implemented: navigation/.test(e))).toEqual([]);
  });

  it('a malformed definition shows "could not be loaded" instead of throwing into the page', async () => {
    page = openPage({ attrs: { 'forms-url': forms.url }, body: '<div id="f"></div>' });
    for (const definition of [
      { guid: 'x', fields: [null] },
      { guid: 'x', formFieldGroups: [{ fields: [{ name: 5 }] }] },
    ]) {
      const errors: Error[] = [];
      const form = await page.create({
        portalId: 1,
        formId: 'x',
        target: '#f',
        definition: definition as unknown as FormDefinition,
        onFormDefinitionFetchError: (e) => errors.push(e),
      });
      expect(form).toBeUndefined();
      expect(errors).toHaveLength(1);
      expect(page.$('#f').textContent).toBe('The form could not be loaded.');
    }
  });
});
