/** Dynamic list filters: OR of AND groups over a contact's current property values (strings
 * compared case-insensitively, GT/LT numerically) and its form submissions. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import { badRequest } from '../domain/errors';
import { ANALYTICS } from './default-properties';

export type ListFilters = z.output<typeof schemas.listFilters>;
type ListFilter = ListFilters[number][number];

/** What filters may ask about one contact. */
export interface Subject {
  properties: Record<string, string>;
  hasSubmitted: (formGuid: string) => boolean;
}

const NEEDS_VALUE = new Set(['EQ', 'NEQ', 'CONTAINS', 'NOT_CONTAINS', 'GT', 'LT', 'SET_ANY']);

/** A finite number, or undefined (`Number('')` would be 0). */
function num(s: string | undefined) {
  if (s === undefined || s.trim() === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** Rejects filters that could never be evaluated, and adds the keys the legacy API adds. */
export function normaliseFilters(groups: ListFilters): ListFilters {
  return groups.map((group, g) =>
    group.map((filter, i) => {
      const at = `body.filters.${g}.${i}`;
      if (filter.operator == 'HAS_FILLED_OUT_FORM') {
        if (!filter.form) throw badRequest(`${at}.form: HAS_FILLED_OUT_FORM needs a form guid`);
      } else if (!filter.property) throw badRequest(`${at}.property: ${filter.operator} needs a property`);
      if (NEEDS_VALUE.has(filter.operator) && filter.value === undefined)
        throw badRequest(`${at}.value: ${filter.operator} needs a value`);
      if ((filter.operator == 'GT' || filter.operator == 'LT') && num(String(filter.value)) === undefined)
        throw badRequest(`${at}.value: ${filter.operator} needs a number`);
      return {
        ...filter,
        filterFamily: filter.filterFamily ?? 'PropertyValue',
        withinTimeMode: filter.withinTimeMode ?? 'PAST',
      };
    }),
  );
}

export const matches = (groups: ListFilters, subject: Subject) =>
  groups.some((group) => group.every((f) => test(f, subject)));

/** The forms the filters ask about: a contact's submissions of these are read with it. */
export const formsNamed = (groups: ListFilters) =>
  groups.flat().flatMap((f) => (f.operator == 'HAS_FILLED_OUT_FORM' && f.form ? [f.form] : []));

/** The contact properties the filters read: a write that changes none of them leaves the list as
 * it was. A form filter reads the contact's number of submissions, which every submission changes
 * in the same write (store/forms/store.ts); not the date of its latest, which two submissions in one
 * millisecond (or on a stopped clock) leave as it was. */
export const propertiesRead = (groups: ListFilters) =>
  new Set(
    groups
      .flat()
      .flatMap((f) => (f.property ? [f.property] : f.operator == 'HAS_FILLED_OUT_FORM' ? [ANALYTICS.conversions] : [])),
  );

/** Equal as text, or as numbers ("10.50" is 10.5). */
const equal = (a: string, b: string) => a == b || (num(a) !== undefined && num(a) === num(b));

function test(filter: ListFilter, { properties, hasSubmitted }: Subject): boolean {
  // Own values only: a filter on `toString` must not find Object.prototype's.
  const actual =
    filter.property && Object.hasOwn(properties, filter.property)
      ? properties[filter.property]?.toLowerCase()
      : undefined;
  const wanted = String(filter.value ?? '').toLowerCase();
  const has = actual !== undefined && actual !== '';
  switch (filter.operator) {
    case 'EQ':
      return has && equal(actual, wanted);
    case 'NEQ':
      return !has || !equal(actual, wanted);
    case 'CONTAINS':
      return has && actual.includes(wanted);
    case 'NOT_CONTAINS':
      return !has || !actual.includes(wanted);
    case 'IS_NOT_EMPTY':
      return has;
    case 'IS_EMPTY':
      return !has;
    case 'GT':
    case 'LT': {
      const [a, b] = [num(actual), num(wanted)];
      return a !== undefined && b !== undefined && (filter.operator == 'GT' ? a > b : a < b);
    }
    case 'SET_ANY': {
      // Multi-select values are ';'-separated too: any shared option matches.
      const options = new Set(
        wanted
          .split(';')
          .map((s) => s.trim())
          .filter(Boolean),
      );
      return has && actual.split(';').some((s) => options.has(s.trim()));
    }
    case 'HAS_FILLED_OUT_FORM':
      return hasSubmitted(filter.form!);
  }
}
