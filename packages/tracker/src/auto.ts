/** Script-tag entry (`dist/tracker.js`): configuration from the tag's `data-*` attributes,
 * overridden by `window.svc.config` when the page sets it. */
import { start } from './tracker';
import type { TrackerConfig } from './types';

try {
  const tag = document.currentScript as HTMLScriptElement | null;
  const data = { ...tag?.dataset };
  // Attribute values are strings: `start` accepts "180" for cookieDays and "false" for spa.
  start({
    ...(data as unknown as TrackerConfig),
    collector: data.collector || (tag?.src && new URL(tag.src).origin) || '',
    ...window.svc?.config,
  });
} catch {
  // Never break the host page.
}
