// @vitest-environment jsdom
// @vitest-environment-options { "url": "https://app.example.com/signup" }
/** The ESM build (`dist/forms.mjs`) through the package's exports map and types, as an app
 * bundler would use it: the visitor token comes from the tracker's shared cookie code. */
import { capture, create, type CreateOptions, type SubmissionValue } from '@svc/forms';
import { describe, expect, it, vi } from 'vitest';

describe('ESM build', () => {
  it('renders, submits with the svcutk the tracker set, and types its options', async () => {
    document.cookie = 'svcutk=0123456789abcdef0123456789abcdef; path=/';
    document.title = 'Sign up';
    const bodies: string[] = [];
    globalThis.fetch = vi.fn(async (_url: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(String(init!.body as string));
      return new Response(null, { status: 204 });
    });
    const seen: SubmissionValue[][] = [];
    const options: CreateOptions = {
      portalId: 62515,
      formId: 'f-1',
      formsUrl: 'https://forms.example.net/',
      target: document.body,
      definition: { guid: 'f-1', fields: [{ name: 'email', label: 'Email', required: true }] },
      onFormSubmit: (_form, values) => seen.push(values),
    };
    const form = (await create(options))!;
    const email = form.querySelector('input')!;
    email.value = 'esm@example.com';
    const submitted = new Promise((resolve) => document.addEventListener('svc-forms:onFormSubmitted', resolve));
    form.requestSubmit();
    await submitted;
    expect(fetch).toHaveBeenCalledWith(
      'https://forms.example.net/uploads/form/v2/62515/f-1',
      expect.objectContaining({ method: 'POST' }),
    );
    const body = new URLSearchParams(bodies[0]);
    expect(body.get('email')).toBe('esm@example.com');
    expect(JSON.parse(body.get('svc_context')!)).toEqual({
      svcutk: '0123456789abcdef0123456789abcdef',
      pageUrl: 'https://app.example.com/signup',
      pageName: 'Sign up',
      fillTimeMs: expect.any(Number),
      // A script sent it (jsdom's events are not trusted): no sign of a person.
      interactions: 0,
      prefilled: 0,
      autofilled: 0,
    });
    expect(seen).toEqual([[{ name: 'email', value: 'esm@example.com' }]]);
    expect(typeof capture).toBe('function');
  });
});
