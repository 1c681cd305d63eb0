/** `GET /forms/:guid`: the public part of a form definition, for the embed. Internal settings
 * (notification recipients, embed code, timestamps) stay server-side. Cached, unknown forms too.
 * Nested parts (validation, dependent-field rules, group rich text) are picked key by key too,
 * so nothing the platform adds to them later leaks by default. */
import type { Client } from '@svc/client';
import { SvcApiError } from '@svc/client';
import type { Request, Response } from 'express';
import { HttpError, invalidAnswer, isObject } from './http/errors';
import { TtlCache } from './ttl-cache';

const GUID = /^[A-Za-z0-9-]{1,64}$/;

const FORM_KEYS = ['portalId', 'guid', 'name', 'submitText', 'redirect', 'inlineMessage', 'cssClass'] as const;
const FIELD_KEYS = [
  'name', 'label', 'type', 'fieldType', 'description', 'displayOrder', 'required', 'selectedOptions', 'options',
  'validation', 'enabled', 'hidden', 'defaultValue', 'placeholder', 'unselectedLabel', 'labelHidden', 'dependentFieldFilters',
] as const;
/** What the embed needs to check a value in the browser (blocked domains among them). */
const VALIDATION_KEYS = ['name', 'message', 'data', 'useDefaultBlockList', 'blockedEmailAddresses'] as const;
const FILTER_KEYS = ['operator', 'strValue', 'strValues', 'numberValue', 'boolValue'] as const;

export type PublicField = Record<(typeof FIELD_KEYS)[number], unknown>;
export interface PublicForm {
  portalId: number;
  guid: string;
  name: string;
  submitText?: string;
  redirect?: string;
  inlineMessage?: string;
  cssClass?: string;
  fields: PublicField[];
  formFieldGroups: { fields: PublicField[]; richText?: { content: string } }[];
}

const pick = <K extends string>(o: Record<string, unknown>, keys: readonly K[]) =>
  Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]])) as Record<K, unknown>;

const asObject = (v: unknown) => (isObject(v) ? v : {});
const list = (v: unknown) => (Array.isArray(v) ? v.map(asObject) : []);

function publicField(f: object): PublicField {
  const field = pick(f as Record<string, unknown>, FIELD_KEYS) as PublicField;
  if (field.validation !== undefined) field.validation = pick(asObject(field.validation), VALIDATION_KEYS);
  if (field.dependentFieldFilters !== undefined)
    field.dependentFieldFilters = list(field.dependentFieldFilters).map((r) => ({
      filters: list(r.filters).map((x) => pick(x, FILTER_KEYS)),
      dependentFormField: publicField(asObject(r.dependentFormField)),
      ...(typeof r.formFieldAction == 'string' && { formFieldAction: r.formFieldAction }),
    }));
  return field;
}

export function publicForm(form: Record<string, unknown>): PublicForm {
  const groups = list(form.formFieldGroups);
  return {
    ...(pick(form, FORM_KEYS) as Omit<PublicForm, 'fields' | 'formFieldGroups'>),
    fields: list(form.fields).map(publicField),
    formFieldGroups: groups.map((g) => {
      const content = asObject(g.richText).content;
      return { fields: list(g.fields).map(publicField), ...(typeof content == 'string' && content && { richText: { content } }) };
    }),
  };
}

export function forms(client: Client, o: { cacheTtlMs: number; now: () => number; timeoutMs: number }) {
  const cache = new TtlCache<PublicForm | undefined>(o.cacheTtlMs, 1_000, o.now);
  const load = async (guid: string) => {
    try {
      const form: unknown = await client.forms.get(guid, undefined, { signal: AbortSignal.timeout(o.timeoutMs) });
      if (!isObject(form) || typeof form.guid != 'string') throw invalidAnswer();
      return publicForm(form);
    } catch (e) {
      if (e instanceof SvcApiError && e.status == 404) return undefined;
      throw e;
    }
  };
  return async (req: Request, res: Response) => {
    const guid = String(req.params.guid);
    if (!GUID.test(guid)) throw new HttpError(400, 'the form guid must be 1 to 64 letters, digits or dashes');
    const form = await cache.get(guid, () => load(guid));
    if (!form) throw new HttpError(404, 'no form with this guid');
    res.set('cache-control', `public, max-age=${Math.floor(o.cacheTtlMs / 1000)}`).json(form);
  };
}
