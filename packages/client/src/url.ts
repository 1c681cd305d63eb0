/** Request URLs: every path parameter percent-encoded, query values repeated for arrays. */

/** `/a/:b` with `{b: 'x/y'}` → `/a/x%2Fy`; arrays join with commas (batch ids). Empty, `.` and
 * `..` are refused: URL parsers drop or climb on them whatever their encoding. */
export function fillPath(path: string, params: Record<string, unknown>) {
  return path.replace(/:([A-Za-z_]\w*)/g, (_m, name: string) => {
    const value = params[name];
    const s = Array.isArray(value) ? value.join(',') : String(value ?? '');
    if (s == '' || s == '.' || s == '..') throw new TypeError(`path parameter ${name} must not be "${s}"`);
    return encodeURIComponent(s);
  });
}

/** The names of a path's parameters, in order: `/a/:b/c.:d` → ['b', 'd']. */
export const paramNames = (path: string) => [...path.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => m[1]);

/** `?a=1&p=x&p=y`, or '' when there is nothing to send; undefined and null values are left out. */
export function queryString(query: Record<string, unknown> | undefined) {
  if (!query) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined && item !== null) q.append(k, String(item));
  const s = q.toString();
  return s ? '?' + s : '';
}
