/** The small stylesheet the embed adds: one `<style>` per distinct CSS text, carrying the nonce so
 * that a strict `style-src 'nonce-…'` policy allows it. No inline `style` attribute is ever used. */
import { h } from './dom';

export const CSS =
  '.svc-visually-hidden{position:absolute!important;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}' +
  '.svc-form [hidden]{display:none!important}.svc-field{margin:0 0 1em}.svc-field label,.svc-field legend{display:block}' +
  '.svc-choice label{display:inline}.svc-required,.svc-error-msg,.svc-form-status{color:#b00020}';

const added = new Set<string>();

export function addStyle(css: string, nonce?: string) {
  if (!css || added.has(css)) return;
  added.add(css);
  document.head.append(h('style', { nonce }, css));
}
