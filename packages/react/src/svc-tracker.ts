/** `<SvcTracker>`: starts the tracker once per page, after hydration, from its ESM build loaded as
 * a separate chunk (see the README's "Why the ESM build"). It sends nothing itself: the first page
 * view is the tracker's automatic one, and client-side navigations are the tracker's own SPA page
 * views (it wraps `history.pushState`/`replaceState` and listens to `popstate`, which is how Next.js
 * App Router and React Router navigate), so each navigation counts once. */
import type { TrackerConfig } from '@svc/tracker';
import { useEffect, type ReactNode } from 'react';

export interface SvcTrackerProps extends TrackerConfig {
  /** Rendered as they are: `<SvcTracker>` can wrap the app or stand alone. */
  children?: ReactNode;
}

/** Reads its props once, when the tracker starts: a running tracker cannot be reconfigured (the
 * visitor's decision goes through `useSvc().setConsent`). */
export function SvcTracker({ children, ...config }: SvcTrackerProps): ReactNode {
  useEffect(() => {
    // Under StrictMode the first mount is undone before the import resolves: only the second starts
    // the tracker. A later mount finds it running (`start` is once per window) and changes nothing.
    let live = true;
    import('@svc/tracker')
      .then(({ start }) => live && start(config))
      // A chunk that fails to load (offline, a blocker) is a blocked script tag: the page goes on.
      .catch(() => {});
    return () => {
      live = false;
    };
    // No dependencies: the config is read once, on purpose (above).
  }, []);
  return children;
}
