/** Every callback also fires as a DOM `CustomEvent` (`svc-forms:<name>`, bubbling, detail
 * `{id, instanceId, form, data}`) and as a `postMessage` in the anchor's shape
 * (`{type: 'svcFormCallback', eventName, id, instanceId, data}`), so pages can listen without
 * holding the options. A throwing callback is reported and never stops the form. */
import type { EventName, FormCallbacks } from './types';

export type Fire = (name: EventName, args: unknown[], data?: unknown) => void;

export function emitter(callbacks: FormCallbacks, id: string, instanceId: string, target: () => Element): Fire {
  return (name, args, data) => {
    try {
      (callbacks[name] as ((...a: unknown[]) => void) | undefined)?.(...args);
    } catch (e) {
      console.error(e);
    }
    const form = args[0] instanceof HTMLFormElement ? args[0] : undefined;
    target().dispatchEvent(
      new CustomEvent('svc-forms:' + name, { bubbles: true, detail: { id, instanceId, form, data } }),
    );
    try {
      postMessage({ type: 'svcFormCallback', eventName: name, id, instanceId, data }, '*');
    } catch {
      // data a callback made uncloneable: the DOM event has carried it
    }
  };
}
