// Shared by the benchmarks: visitor tokens linked to new contacts the way a website links them,
// through form submissions with `svcutk` on the demo portal's "Contact us" form.
import { randomBytes } from 'node:crypto';

/** `count` new visitor tokens, each linked to a new contact; `client` is an @svc/client. */
export async function linkVisitorTokens(client, portalId, count, { concurrency = 20 } = {}) {
  const form = (await client.forms.list()).find((f) => f.name == 'Contact us');
  if (!form) throw new Error("the portal has no 'Contact us' form");
  const run = randomBytes(4).toString('hex'); // keeps this run's emails apart from earlier ones
  const utks = Array.from({ length: count }, () => randomBytes(16).toString('hex'));
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++)
        await client.forms.submitFields(portalId, form.guid, {
          fields: { email: `visitor-${run}-${i}@bench.test`, firstname: 'Ada', lastname: String(i), message: 'hello' },
          utk: utks[i],
          // The form asks for consent to store the details (legalConsentOptions), as a visitor gives it.
          legalConsent: { consent: { consentToProcess: true } },
        });
    }),
  );
  return utks;
}
