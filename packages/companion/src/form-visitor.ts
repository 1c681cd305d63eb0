/** `GET /forms/:guid/visitor`: what the embed changes in a form for the visitor it is shown to.
 * For a visitor the platform knows (their `svcutk` cookie is linked to a contact): `values`, the
 * contact's values of the form's pre-fill fields and of no others, and `replace`, progressive
 * profiling: each answered smart field (in form order, up to the form's `queueLimit`) mapped to
 * the next queued question the contact has not answered. An unknown, opted-out or cookieless
 * visitor gets empty maps, and so does a form that asks for neither. Private: never cached by
 * anyone (the answer is one person's). One platform read per known visitor's form view; who is
 * known comes from the visitor cache, so unknown visitors cost nothing. */
import type { Client } from '@svc/client';
import { SvcApiError } from '@svc/client';
import { invalidAnswer, isObject } from './http/errors';
import { privateJson, type CoreRequest, type Reply } from './http/exchange';
import type { Params } from './http/router';
import type { Forms, VisitorRules } from './forms';
import { visitorUtk } from './utk';
import type { Visitors } from './visitor';

export interface VisitorForm {
  values: Record<string, string>;
  replace: Record<string, string>;
}

/** Which queued question takes which answered smart field's place. */
export function replacements(rules: VisitorRules, answered: (name: string) => boolean): Record<string, string> {
  const next = rules.queued.filter((q) => !answered(q));
  const replace: Record<string, string> = {};
  let used = 0;
  for (const smart of rules.smart) {
    if (used >= rules.queueLimit || !next.length) break;
    if (answered(smart)) {
      replace[smart] = next.shift()!;
      used++;
    }
  }
  return replace;
}

export function formVisitor(client: Client, forms: Forms, people: Visitors, o: { timeoutMs: number }) {
  return async (req: CoreRequest, { guid }: Params): Promise<Reply> => {
    const { rules } = await forms.find(guid);
    const empty = privateJson({ values: {}, replace: {} } satisfies VisitorForm);
    const names = [...new Set([...rules.prefill, ...rules.smart, ...rules.queued])];
    const utk = visitorUtk(req.cookies());
    if (!utk || !names.length) return empty;
    const known = await people.lookup(utk);
    if (!known) return empty;
    let properties: Record<string, { value?: unknown } | undefined>;
    try {
      const c: unknown = await client.contacts.getByVid(
        known.vid,
        { property: names, propertyMode: 'value_only' },
        { signal: AbortSignal.timeout(o.timeoutMs) },
      );
      if (!isObject(c) || !isObject(c.properties)) throw invalidAnswer();
      properties = c.properties as typeof properties;
    } catch (e) {
      // Deleted since the visitor cache saw it: unknown now.
      if (e instanceof SvcApiError && e.status == 404) return empty;
      throw e;
    }
    const value = (name: string) => {
      const v = properties[name]?.value;
      return v === undefined || v === null || v === '' ? undefined : String(v);
    };
    const values: Record<string, string> = {};
    for (const name of rules.prefill) {
      const v = value(name);
      if (v !== undefined) values[name] = v;
    }
    return privateJson({
      values,
      replace: replacements(rules, (name) => value(name) !== undefined),
    } satisfies VisitorForm);
  };
}
