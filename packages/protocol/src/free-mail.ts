/** The common free-mail providers that a form field's `useDefaultBlockList` refuses: the embed
 * checks before sending and the platform checks again when a submission comes anyway, so both
 * must hold the same list. Here, with no dependency, the browser bundle can import it without
 * pulling in the catalog's zod schemas. */
export const FREE_MAIL_DOMAINS: readonly string[] = [
  'aol.com',
  'gmail.com',
  'gmx.com',
  'googlemail.com',
  'hotmail.com',
  'icloud.com',
  'live.com',
  'mail.com',
  'outlook.com',
  'yahoo.com',
];
