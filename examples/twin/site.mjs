// A website's integration with the platform, as a site would write it: its code reads the
// platform's address and token from the environment (in production, its own settings), and
// retries what the platform asks it to retry (429 with Retry-After, 502, 503).

const base = () => process.env.SVC_BASE_URL;
const auth = () => ({ authorization: `Bearer ${process.env.SVC_TOKEN}` });
const RETRYABLE = new Set([429, 502, 503]);

/** fetch with the site's retry policy: up to 3 tries, waiting Retry-After (or 100 ms). */
async function call(path, init = {}) {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(base() + path, { ...init, headers: { ...auth(), ...init.headers } });
    if (!RETRYABLE.has(res.status) || attempt == 3) return res;
    const wait = Number(res.headers.get('retry-after') ?? 0.1) * 1000;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** A newsletter sign-up: the contact made (or updated) by email. Resolves to its vid. */
export async function signUp(email, firstname) {
  const res = await call(`/contacts/v1/contact/createOrUpdate/email/${encodeURIComponent(email)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ properties: [{ property: 'firstname', value: firstname }] }),
  });
  if (!res.ok) throw new Error(`sign-up failed: ${res.status}`);
  return (await res.json()).vid;
}

/** "Welcome back, Ada": the first name of a known visitor's contact, or undefined. */
export async function greetingName(email) {
  const res = await call(`/contacts/v1/contact/email/${encodeURIComponent(email)}/profile`);
  if (res.status == 404) return undefined;
  if (!res.ok) throw new Error(`lookup failed: ${res.status}`);
  return (await res.json()).properties.firstname?.value;
}

/** A new lead enters the portal's "Welcome new leads" workflow (a lead now, the newsletter an
 * hour later). */
export async function welcome(email) {
  const { workflows } = await (await call('/automation/v2/workflows')).json();
  const flow = workflows.find((w) => w.name == 'Welcome new leads');
  const res = await call(`/automation/v2/workflows/${flow.id}/enrollments/contacts/${encodeURIComponent(email)}`, {
    method: 'POST',
  });
  if (!res.ok) throw new Error(`enrolment failed: ${res.status}`);
}
