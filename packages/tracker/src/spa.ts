/** Single-page apps: a callback after every `pushState`, `replaceState`, `popstate` and
 * `hashchange` (the tracker ignores fragment changes unless hash routing is on). */
export function watchHistory(onChange: () => void) {
  const safe = () => {
    try {
      onChange();
    } catch {}
  };
  for (const name of ['pushState', 'replaceState'] as const) {
    const original = history[name];
    history[name] = function (this: History, ...args: Parameters<History['pushState']>) {
      original.apply(this, args);
      safe();
    };
  }
  // Capture: before the app's own listeners, which may set the new route's title at once.
  for (const name of ['popstate', 'hashchange']) addEventListener(name, safe, true);
}
