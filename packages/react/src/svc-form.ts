/** `<SvcForm>`: the form embed (`create` from @svc/forms) in a node React renders and never
 * touches again. Each mount renders into a fresh element of its own inside that node and removes it
 * on cleanup, so StrictMode's mount, unmount, mount leaves exactly one form, and a definition that
 * arrives after unmount lands in a detached element. The embed's callbacks go to the latest props,
 * and never after unmount. */
import type { CreateOptions, FormCallbacks } from '@svc/forms';
import { createElement, useEffect, useInsertionEffect, useRef, type ReactElement } from 'react';

/** The embed's callback names without "Form": `onFormSubmitted` → `onSubmitted`. */
type PropName<K> = K extends `${infer A}Form${infer B}` ? `${A}${B}` : never;
export type SvcFormCallbacks = { [K in keyof FormCallbacks as PropName<K>]: FormCallbacks[K] };

export interface SvcFormProps
  extends Omit<CreateOptions, 'target' | 'formsUrl' | keyof FormCallbacks>, SvcFormCallbacks {
  /** `{forms_url}` of the platform (no script tag to take it from). */
  formsUrl: string;
  /** Classes of the element the form is rendered in. */
  className?: string;
}

const CALLBACKS: (keyof FormCallbacks)[] = [
  'onBeforeFormInit',
  'onFormDefinitionFetchError',
  'onFormReady',
  'onBeforeFormSubmit',
  'onFormSubmit',
  'onFormSubmitted',
  'onFormSubmitError',
];

/** Made again when the form's identity or source changes; every other option is read when it is
 * made (give the component a new `key` to apply them). */
export function SvcForm(props: SvcFormProps): ReactElement {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  // Before any effect and never on the server: callbacks see the props of the last commit.
  useInsertionEffect(() => {
    latest.current = props;
  });
  const { portalId, formId, formsUrl, companion, definitionUrl } = props;
  useEffect(() => {
    let live = true;
    const target = host.current!.appendChild(document.createElement('div'));
    void import('@svc/forms').then(({ create }) => {
      if (!live) return;
      // The props' own callback names and className are not options of the embed; it ignores them.
      const options: Record<string, unknown> = { ...latest.current, target };
      for (const name of CALLBACKS)
        options[name] = (...args: unknown[]) => {
          const callback = latest.current[name.replace('Form', '') as keyof SvcFormCallbacks];
          if (live) (callback as ((...a: unknown[]) => void) | undefined)?.(...args);
        };
      return create(options as unknown as CreateOptions);
    });
    return () => {
      live = false;
      target.remove();
    };
  }, [portalId, formId, formsUrl, companion, definitionUrl]);
  return createElement('div', { ref: host, className: props.className });
}
