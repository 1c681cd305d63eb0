/** Single-page apps: a callback after every `pushState`, `replaceState` and `popstate`, which
 * includes fragment changes (the tracker ignores those unless hash routing is on). */
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
  // Browsers fire popstate for every fragment navigation too (link, location.hash, back), right
  // before hashchange, so this one listener sees hash routes. Capture: before the app's own
  // listeners, which may set the new route's title at once.
  addEventListener('popstate', safe, true);
}
