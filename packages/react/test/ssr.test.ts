/** On the server (a plain Node environment, no DOM): importing the built package reads no browser
 * global, and rendering its components to HTML works, with every command a no-op. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

const BROWSER_GLOBALS = [
  'window',
  'document',
  'navigator',
  'location',
  'history',
  'localStorage',
  'sessionStorage',
  'self',
];

/** Defines every browser global as a getter that records its name; returns the names read so far
 * and a function that removes the getters. Node 20 has none of them (Node 21+ has `navigator`). */
function watchGlobals() {
  const read: string[] = [];
  const before = BROWSER_GLOBALS.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const);
  for (const name of BROWSER_GLOBALS)
    Object.defineProperty(globalThis, name, { configurable: true, get: () => (read.push(name), undefined) });
  const restore = () => {
    for (const [name, descriptor] of before)
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete (globalThis as Record<string, unknown>)[name];
  };
  return { read, restore };
}

describe('on the server', () => {
  it('imports without reading window, document or any other browser global', async () => {
    expect(typeof window).toBe('undefined');
    const globals = watchGlobals();
    try {
      const svc = await import('@svc/react');
      expect(Object.keys(svc).sort()).toEqual(['SvcForm', 'SvcTracker', 'usePrivacyConsent', 'useSvc']);
    } finally {
      globals.restore();
    }
    expect(globals.read).toEqual([]);
  });

  it('imports the same way in a plain Node process, through the package exports', () => {
    const script = `
      const read = [];
      for (const name of ${JSON.stringify(BROWSER_GLOBALS)})
        Object.defineProperty(globalThis, name, { configurable: true, get: () => (read.push(name), undefined) });
      const svc = await import('@svc/react');
      console.log(JSON.stringify({ read, exports: Object.keys(svc).sort() }));`;
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ read: [], exports: ['SvcForm', 'SvcTracker', 'usePrivacyConsent', 'useSvc'] });
  });

  it('renders to HTML, hooks and commands doing nothing', async () => {
    const { SvcForm, SvcTracker, usePrivacyConsent, useSvc } = await import('@svc/react');
    function Page() {
      const svc = useSvc();
      // Commands given while rendering on the server (which a page should not do) are no-ops.
      svc.identify({ email: 'ada@example.com' });
      svc.trackEvent({ id: 'rendered' });
      const stop = svc.addPrivacyConsentListener(() => {});
      stop();
      const consent = usePrivacyConsent();
      return h('p', null, consent ? 'decided' : 'undecided');
    }
    const html = renderToString(
      h(
        SvcTracker,
        { portalId: '62515', collector: '/svc' },
        h(Page),
        h(SvcForm, { portalId: 62515, formId: 'f-1', formsUrl: 'https://forms.example.net', className: 'signup' }),
      ),
    );
    expect(html).toBe('<p>undecided</p><div class="signup"></div>');
    expect(typeof window).toBe('undefined');
  });
});
