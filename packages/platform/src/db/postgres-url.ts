/** PostgreSQL URLs: which database names one, and how one is shown without its password. */

/** Whether `database` names a PostgreSQL database (a `postgres://` or `postgresql://` URL) rather
 * than a SQLite file. */
export const isPostgresUrl = (database: string) => /^postgres(ql)?:\/\//i.test(database);

/** The URL without its password, for messages and logs: the user's (`//user:password@`, up to
 * the last `@` of the address, as a password may hold an `@` or a `/` unescaped) and a `password`
 * parameter's. Where the address is unclear, more is masked, never less. */
export function withoutPassword(url: string) {
  let shown = url.replace(/([?&]password=)[^&#]*/gi, '$1***');
  const start = shown.indexOf('//') + 2;
  if (start < 2) return shown;
  const query = shown.indexOf('?', start);
  const beforeQuery = query < 0 ? -1 : shown.lastIndexOf('@', query);
  const at = beforeQuery >= start ? beforeQuery : shown.lastIndexOf('@');
  const colon = shown.indexOf(':', start);
  if (at > start && colon >= start && colon < at) shown = `${shown.slice(0, colon + 1)}***${shown.slice(at)}`;
  return shown;
}
