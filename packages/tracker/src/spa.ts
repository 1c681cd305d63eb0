/** Single-page apps: a callback after every `pushState`, `replaceState` and `popstate`. */
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
  addEventListener('popstate', safe);
}
