/** Single-page apps: a callback before and after every `pushState` and `replaceState`, and on every
 * `popstate`, which includes fragment changes (the tracker ignores those unless hash routing is on).
 * Before: the page is still at the URL being left, whose view takes the title of that moment.
 * `onChange` must not throw: it runs inside the app's calls and listeners. */
export function watchHistory(onChange: () => void) {
  for (const name of ['pushState', 'replaceState'] as const) {
    // Called with the caller's own `this`, as the page called it.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const original = history[name];
    history[name] = function (this: History, ...args: Parameters<History['pushState']>) {
      onChange();
      original.apply(this, args);
      onChange();
    };
  }
  // Browsers fire popstate for every fragment navigation too (link, location.hash, back), right
  // before hashchange, so this one listener sees hash routes. The URL has changed before any
  // listener runs, and the app's may run first and retitle (on window they run in the order they
  // were added): the tracker does not depend on running first.
  addEventListener('popstate', onChange);
}
