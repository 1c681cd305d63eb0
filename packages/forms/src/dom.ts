/** `h('input', {type: 'text', required: true}, ...children)`: an element with attributes set by
 * `setAttribute` and children appended as nodes; strings always become text, never markup. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const k in attrs) {
    const v = attrs[k];
    if (v !== undefined && v !== false) el.setAttribute(k, v === true ? '' : v);
  }
  el.append(...children);
  return el;
}

/** Classes from a space-separated string (options such as `errorClass`). */
export const classes = (s: string) => s.split(/\s+/).filter(Boolean);
