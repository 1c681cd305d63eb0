/** `GET /forms/:guid`: the public part of a form definition, for the embed. Internal settings
 * (notification recipients, embed code, timestamps, which fields are smart and the queue's limit)
 * stay server-side. Cached, unknown forms too. Nested parts (validation, dependent-field rules,
 * group rich text, consent options, steps) are picked key by key too, so nothing the platform adds
 * to them later leaks by default. The rules the visitor route needs (form-visitor.ts) are kept
 * next to the public part, from the same cached read. */
import type { Client } from '@svc/client';
import { SvcApiError } from '@svc/client';
import { HttpError, invalidAnswer, isObject } from './http/errors';
import { cacheable, etagOf, JSON_TYPE, type CoreRequest, type Reply } from './http/exchange';
import type { Params } from './http/router';
import { TtlCache } from './ttl-cache';

const GUID = /^[A-Za-z0-9-]{1,64}$/;

const FORM_KEYS = ['portalId', 'guid', 'name', 'submitText', 'redirect', 'inlineMessage', 'cssClass'] as const;
const FIELD_KEYS = [
  'name',
  'label',
  'type',
  'fieldType',
  'description',
  'displayOrder',
  'required',
  'selectedOptions',
  'options',
  'validation',
  'enabled',
  'hidden',
  'defaultValue',
  'placeholder',
  'unselectedLabel',
  'labelHidden',
  'dependentFieldFilters',
  // Whether to ask the companion for the visitor's values at all; where a hidden field's value comes from.
  'prefill',
  'queryParam',
  'cookieName',
] as const;
const CONSENT_KEYS = [
  'consentToProcessText',
  'consentToProcessCheckboxLabel',
  'communicationConsentText',
  'privacyText',
] as const;
const CHECKBOX_KEYS = ['subscriptionTypeId', 'label', 'required'] as const;
const STEP_KEYS = ['title', 'groups'] as const;
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
  queuedFields?: PublicField[];
  legalConsentOptions?: Record<string, unknown>;
  steps?: Record<string, unknown>[];
}

/** What the visitor route needs to know of a form, and the browser does not. */
export interface VisitorRules {
  /** Fields filled with the known visitor's values. */
  prefill: string[];
  /** Smart fields in form order: answered ones give their place to queued questions. Never
   * `email`, by which the platform finds the contact. */
  smart: string[];
  queued: string[];
  queueLimit: number;
}

export interface LoadedForm {
  form: PublicForm;
  rules: VisitorRules;
  /** The public part as JSON, and its validator: worked out once per cached read. */
  body: string;
  etag: string;
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
  const consent = isObject(form.legalConsentOptions) ? form.legalConsentOptions : undefined;
  const queued = list(form.queuedFields);
  return {
    ...(pick(form, FORM_KEYS) as Omit<PublicForm, 'fields' | 'formFieldGroups'>),
    fields: list(form.fields).map(publicField),
    formFieldGroups: groups.map((g) => {
      const content = asObject(g.richText).content;
      return {
        fields: list(g.fields).map(publicField),
        ...(typeof content == 'string' && content && { richText: { content } }),
      };
    }),
    ...(queued.length > 0 && { queuedFields: queued.map(publicField) }),
    ...(consent && {
      legalConsentOptions: {
        ...pick(consent, CONSENT_KEYS),
        ...(Array.isArray(consent.communicationsCheckboxes) && {
          communicationsCheckboxes: list(consent.communicationsCheckboxes).map((c) => pick(c, CHECKBOX_KEYS)),
        }),
      },
    }),
    ...(Array.isArray(form.steps) &&
      form.steps.length > 0 && { steps: list(form.steps).map((x) => pick(x, STEP_KEYS)) }),
  };
}

/** The fields of every group (or `fields`), dependent fields after their parent. */
function everyField(form: Record<string, unknown>) {
  const groups = list(form.formFieldGroups);
  const top = groups.length ? groups.flatMap((g) => list(g.fields)) : list(form.fields);
  const withDependents = top.flatMap((f) => [
    f,
    ...list(f.dependentFieldFilters).map((r) => asObject(r.dependentFormField)),
  ]);
  return { top, all: [...withDependents, ...list(form.queuedFields)] };
}

export function visitorRules(form: Record<string, unknown>): VisitorRules {
  const { top, all } = everyField(form);
  const names = (fields: Record<string, unknown>[]) =>
    fields.map((f) => f.name).filter((n): n is string => typeof n == 'string');
  const limit = form.queueLimit;
  return {
    prefill: names(all.filter((f) => f.prefill === true)),
    smart: names(top.filter((f) => f.isSmartField === true && f.name != 'email')),
    queued: names(list(form.queuedFields)),
    queueLimit: typeof limit == 'number' && limit >= 0 ? limit : Infinity,
  };
}

export function forms(client: Client, o: { cacheTtlMs: number; now: () => number; timeoutMs: number }) {
  const cache = new TtlCache<LoadedForm | undefined>(o.cacheTtlMs, 1_000, o.now);
  const load = async (guid: string): Promise<LoadedForm | undefined> => {
    try {
      const form: unknown = await client.forms.get(guid, undefined, { signal: AbortSignal.timeout(o.timeoutMs) });
      if (!isObject(form) || typeof form.guid != 'string') throw invalidAnswer();
      const shown = publicForm(form);
      const body = JSON.stringify(shown);
      return { form: shown, rules: visitorRules(form), body, etag: etagOf(body) };
    } catch (e) {
      if (e instanceof SvcApiError && e.status == 404) return undefined;
      throw e;
    }
  };
  /** The form `guid` (the route's parameter), cached; a 400 or 404 names the problem. */
  async function find(guid: string): Promise<LoadedForm> {
    if (!GUID.test(guid)) throw new HttpError(400, 'guid: a form guid is 1 to 64 letters, digits or dashes');
    const loaded = await cache.get(guid, () => load(guid));
    if (!loaded) throw new HttpError(404, 'no form with this guid');
    return loaded;
  }
  return {
    find,
    route: async (req: CoreRequest, { guid }: Params): Promise<Reply> => {
      const { body, etag } = await find(guid);
      const headers = {
        'content-type': JSON_TYPE,
        'cache-control': `public, max-age=${Math.floor(o.cacheTtlMs / 1000)}`,
      };
      return cacheable(req, { status: 200, headers, body }, etag);
    },
  };
}

export type Forms = ReturnType<typeof forms>;
