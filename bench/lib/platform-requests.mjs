// bench/platform.mjs's request generators: each returns a function that makes a new request
// (method, path, headers, body) per call, for autocannon.
import { randomBytes, randomInt } from 'node:crypto';

/** A prefix that keeps this run's emails and event ids apart from the seeded ones. */
const RUN = randomBytes(6).toString('hex');
let serial = 0;
const unique = () => (++serial).toString(16).padStart(20, '0');
const hex32 = () => randomBytes(16).toString('hex');
const pick = (list) => list[randomInt(list.length)];

export function pageRequest(auth, vidOffset) {
  return () => ({
    method: 'GET',
    path: `/contacts/v1/lists/all/contacts/all?count=100&vidOffset=${vidOffset}`,
    headers: auth,
  });
}

/** A page of a blog's published posts, newest first, at a random page among the first 50. */
export function contentListRequest(auth, blogId) {
  return () => ({
    method: 'GET',
    path: `/content/api/v2/blog-posts?content_group_id=${blogId}&state=PUBLISHED&order_by=-publish_date&limit=20&offset=${20 * randomInt(50)}`,
    headers: auth,
  });
}

/** A contact's profile by a random key of `kind`: any vid of the range when it has no gaps, else a sampled one. */
export function lookupRequest(auth, kind, keys) {
  const vid = keys.gapless ? () => randomInt(keys.lo, keys.hi + 1) : () => pick(keys.vids);
  const key = { vid, email: () => encodeURIComponent(pick(keys.emails)), utk: () => pick(keys.utks) }[kind];
  return () => ({ method: 'GET', path: `/contacts/v1/contact/${kind}/${key()}/profile`, headers: auth });
}

/** 1,000 contacts, half new, half existing (seeded) emails whose company changes. */
export function batchRequest(auth, keys) {
  return () => {
    const items = Array.from({ length: 1000 }, (_, i) =>
      i % 2
        ? { email: pick(keys.emails), properties: [{ property: 'company', value: `Bench ${unique()}` }] }
        : {
            email: `batch-${RUN}-${unique()}@example.test`,
            properties: [
              { property: 'firstname', value: 'Batch' },
              { property: 'company', value: 'Bench' },
            ],
          },
    );
    return {
      method: 'POST',
      path: '/contacts/v1/contact/batch/',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(items),
    };
  };
}

/** A new lead on the 'Contact us' form, from a new visitor (svcutk), as the embed posts it (consent given). */
export function formRequest(portalId, formGuid) {
  return () => {
    const context = { svcutk: hex32(), pageUrl: 'https://acme.test/contact', pageName: 'Contact us' };
    const body = new URLSearchParams({
      email: `form-${RUN}-${unique()}@example.test`,
      firstname: 'Form',
      lastname: 'Bench',
      message: 'Hello',
      svc_context: JSON.stringify(context),
      // The form asks for consent to store the details, as the embed sends it when the box is ticked.
      legalConsentOptions: JSON.stringify({ consent: { consentToProcess: true } }),
    });
    return {
      method: 'POST',
      path: `/uploads/form/v2/${portalId}/${formGuid}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    };
  };
}

/** A tracker batch: 10 events of one visitor (half known contacts, half anonymous), 7 page views and 3 custom events; the
 * first page view comes from a search engine and the others from the page before, as the tracker sends referrers. */
export function collectRequest(portalId, keys) {
  return () => {
    const vi = randomInt(2) ? pick(keys.utks) : hex32();
    const cts = String(Date.now());
    const events = Array.from({ length: 10 }, (_, i) =>
      i % 3 == 2
        ? {
            eid: RUN + unique(),
            k: '3',
            a: String(portalId),
            v: '1',
            cts,
            pu: 'https://acme.test/pricing',
            n: 'clicked-buy',
            m: '49',
            vi,
          }
        : {
            eid: RUN + unique(),
            k: '1',
            a: String(portalId),
            v: '1',
            cts,
            pu: `https://acme.test/page-${i}`,
            t: 'Page',
            po: `/page-${i}`,
            vi,
            r: i == 0 ? 'https://www.google.com/' : `https://acme.test/page-${i - 1}`,
          },
    );
    return {
      method: 'POST',
      path: '/collect/e',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify(events),
    };
  };
}

/** What a measurement counts as answered: a status, or a collector batch with all ten accepted. */
export const is = (status) => (s) => s == status;
export const accepted10 = (s, text) => s == 200 && JSON.parse(text).accepted == 10;
