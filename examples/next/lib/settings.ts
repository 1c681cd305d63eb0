/** Where the platform is and which portal and form the site shows, from the environment (see
 * README.md). Read when a request is rendered, not when the site is built, so one build runs
 * against any platform. */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: see examples/next/README.md`);
  return value;
}

export const settings = {
  baseUrl: () => required('SVC_BASE_URL'),
  formsUrl: () => required('SVC_FORMS_URL'),
  token: () => required('SVC_PRIVATE_APP_TOKEN'),
  portalId: () => process.env.SVC_PORTAL_ID || '62515',
  contactFormId: () => required('SVC_CONTACT_FORM_ID'),
};
