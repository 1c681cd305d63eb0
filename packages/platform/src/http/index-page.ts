/** The root of each server as a small page, so that an address `npm start` or `svc-platform`
 * prints answers something a person can read: `{base_url}/` names the API, its OpenAPI document,
 * the inspector and the forms address; `{forms_url}/` says what it takes and links back. Neither
 * holds data; the addresses are the ones the platform listens on (or its public URL), known once
 * it listens. */
import { FORM_SUBMIT_PATH } from '@svc/protocol';
import type { Express } from 'express';

export interface Addresses {
  baseUrl?: string;
  formsUrl?: string;
  inspector: boolean;
}

const escape = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const HEADERS = {
  'Content-Security-Policy': "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`;
const link = (href: string, text = href) => `<a href="${escape(href)}">${escape(text)}</a>`;

export function mountBaseIndex(app: Express, at: Addresses) {
  app.get('/', (_req, res) => {
    const base = at.baseUrl ?? '';
    const items = [
      `<li>API: <code>${escape(base)}</code>, every route of the spec; calls need a private app token or an OAuth access token (<code>Authorization: Bearer …</code>)</li>`,
      `<li>OpenAPI document: ${link(`${base}/openapi.json`)}</li>`,
      at.inspector
        ? `<li>Inspector: ${link(`${base}/_inspector/`)} (open it with the key the platform printed, or <code>inspectorKey</code> in its credentials file); the emails workflows sent, which the platform keeps instead of mailing them: ${link(`${base}/_inspector/mail.html`)}</li>`
        : '<li>Inspector: off</li>',
      at.formsUrl ? `<li>Forms (form submissions): ${link(`${at.formsUrl}/`, at.formsUrl)}</li>` : '',
      `<li>Tracking collector: <code>${escape(base)}/collect</code>; the tracker for a portal's pages: <code>${escape(base)}/js/{portalId}.js</code></li>`,
    ];
    res
      .set(HEADERS)
      .type('html')
      .send(page('svc platform', `<ul>${items.join('')}</ul>`));
  });
}

export function mountFormsIndex(app: Express, at: Addresses) {
  app.get('/', (_req, res) => {
    const back = at.baseUrl ? `<p>The API and its OpenAPI document: ${link(`${at.baseUrl}/`, at.baseUrl)}</p>` : '';
    const body = `<p>Form submissions go here: <code>POST ${escape(FORM_SUBMIT_PATH)}</code> (urlencoded fields and <code>svc_context</code>).</p>${back}`;
    res.set(HEADERS).type('html').send(page('svc platform: forms', body));
  });
}
