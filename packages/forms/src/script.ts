/** Defaults taken from the `<script src=".../forms.js">` tag: `data-forms-url`, `data-companion`
 * (default: the folder the script came from, since the companion serves both) and its nonce. */
import type { CreateOptions, SubmitOptions } from './types';

export const defaults: Pick<CreateOptions, 'formsUrl' | 'companion' | 'nonce'> = {};

export function readScriptTag(tag: HTMLScriptElement | null) {
  if (!tag) return;
  const data = tag.dataset;
  defaults.formsUrl = data.formsUrl;
  defaults.companion = data.companion || (tag.src ? new URL('.', tag.src).href : undefined);
  // Browsers hide the nonce attribute once the script runs; the property keeps it.
  defaults.nonce = tag.nonce || tag.getAttribute('nonce') || undefined;
}

/** The options with the tag's defaults filled in; the required ones checked. */
export function withDefaults<T extends SubmitOptions & { companion?: string; nonce?: string }>(
  options: T,
  caller: string,
) {
  const o: T = {
    ...options,
    formsUrl: options.formsUrl ?? defaults.formsUrl,
    companion: options.companion ?? defaults.companion,
    nonce: options.nonce ?? defaults.nonce,
  };
  if (!o.portalId || !o.formId) throw new TypeError(`svc.forms.${caller}: portalId and formId are required`);
  if (!o.formsUrl) throw new TypeError(`svc.forms.${caller}: formsUrl is required`);
  return o as T & { formsUrl: string };
}
