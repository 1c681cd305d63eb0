/** A content v2 list query (`name__icontains=spring&created__gt=…&order_by=-publish_date`) as SQL.
 * Field names are checked against the collection's record keys before they reach the SQL, so only
 * known identifiers are ever interpolated; values are always bound. */
import type { Dialect, Param } from '../../db/engine';
import { badRequest } from '../../domain/errors';

/** Fields with a generated, indexable column (see content_objects in db/schema.ts). */
const COLUMNS = new Set([
  'id',
  'deleted_at',
  'created',
  'updated',
  'name',
  'slug',
  'state',
  'publish_date',
  'content_group_id',
]);
/** Those of them that hold numbers, and of those the whole numbers (64-bit integers on
 * PostgreSQL, which refuses to compare one with text or a fraction: a 400 names the value). */
const NUMBER_COLUMNS = new Set(['id', 'deleted_at', 'created', 'updated', 'publish_date', 'content_group_id']);
const WHOLE_COLUMNS = new Set(['id', 'deleted_at']);

const OPS = ['eq', 'ne', 'contains', 'icontains', 'gt', 'gte', 'lt', 'lte', 'in', 'range', 'is_null'] as const;
type Op = (typeof OPS)[number];

/** Query keys that are not field filters. */
const NOT_FILTERS = new Set(['limit', 'offset', 'order_by', 'casing']);

export interface ListSql {
  where: string[];
  args: Param[];
  order: string;
}

type Kind = 'number' | 'boolean' | 'text';

/** What a query-string value is compared as: numbers as numbers, true/false as 1/0 (how SQLite
 * reads JSON booleans), anything else as text. */
const kindOf = (raw: string): Kind =>
  /^-?\d+(\.\d+)?$/.test(raw) ? 'number' : raw == 'true' || raw == 'false' ? 'boolean' : 'text';
const value = (raw: string): Param => ({ number: Number(raw), boolean: raw == 'true' ? 1 : 0, text: raw })[kindOf(raw)];

/** `query` holds the validated list query; `fields` the record keys that may be filtered on. */
export function listSql(query: Record<string, unknown>, fields: ReadonlySet<string>, d: Dialect): ListSql {
  /** The field as an expression compared with values of `kind` (a JSON field is read as one). */
  const expr = (field: string, kind: Kind = 'text') => {
    if (COLUMNS.has(field)) return field;
    const path = `$.${field}`;
    return kind == 'number'
      ? d.jsonNumber('data', path)
      : kind == 'boolean'
        ? d.jsonBoolean('data', path)
        : d.jsonText('data', path);
  };
  /** One kind for several values: text unless they are all of one kind. */
  const kindOfAll = (raws: string[]) => {
    const kinds = new Set(raws.map(kindOf));
    return kinds.size == 1 ? [...kinds][0] : 'text';
  };
  const where: string[] = [];
  const args: Param[] = [];
  let deletedFiltered = false;
  for (const [key, raw] of Object.entries(query)) {
    if (NOT_FILTERS.has(key) || raw === undefined) continue;
    const [field, op = 'eq'] = key.split('__') as [string, Op | undefined];
    if (!fields.has(field)) throw badRequest(`query.${key}: unknown field ${field}`);
    if (!OPS.includes(op)) throw badRequest(`query.${key}: unknown operator ${op}; use one of ${OPS.join(', ')}`);
    // Some filters arrive parsed by the catalog (`archived` a boolean, `folder_id` a number).
    const text = typeof raw == 'boolean' || typeof raw == 'number' ? String(raw) : raw;
    if (typeof text != 'string') throw badRequest(`query.${key}: give it once`);
    if (field == 'deleted_at') deletedFiltered = true;
    /** Values compared with a number column must be numbers. */
    const numbers = (raws: string[]) => {
      if (!NUMBER_COLUMNS.has(field)) return raws;
      const whole = WHOLE_COLUMNS.has(field);
      const wrong = raws.find((r) => kindOf(r) != 'number' || (whole && !Number.isSafeInteger(Number(r))));
      if (wrong !== undefined)
        throw badRequest(
          `query.${key}: ${field} is ${whole ? 'a whole number' : 'a number'}, not '${wrong.slice(0, 100)}'`,
        );
      return raws;
    };
    const e = expr(field, kindOf(text));
    /** The field as text, to search in (a number column's digits). */
    const asText = NUMBER_COLUMNS.has(field) ? `CAST(${field} AS TEXT)` : expr(field);
    switch (op) {
      case 'eq':
        where.push(`${e} = ?`);
        args.push(value(numbers([text])[0]));
        break;
      case 'ne':
        where.push(`(${e} IS NULL OR ${e} != ?)`);
        args.push(value(numbers([text])[0]));
        break;
      case 'contains':
        where.push(`${d.instr(asText, '?')} > 0`);
        args.push(text);
        break;
      case 'icontains':
        where.push(`${d.instr(`lower(${asText})`, 'lower(?)')} > 0`);
        args.push(text);
        break;
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const sign = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op as 'gt'];
        where.push(`${e} ${sign} ?`);
        args.push(value(numbers([text])[0]));
        break;
      }
      case 'in': {
        const items = numbers(text.split(','));
        where.push(`${expr(field, kindOfAll(items))} IN (${items.map(() => '?').join(', ')})`);
        args.push(...items.map(value));
        break;
      }
      case 'range': {
        const [from, to, extra] = text.split(',');
        if (from === undefined || to === undefined || extra !== undefined)
          throw badRequest(`query.${key}: must be two values, from,to`);
        numbers([from, to]);
        where.push(`${expr(field, kindOfAll([from, to]))} BETWEEN ? AND ?`);
        args.push(value(from), value(to));
        break;
      }
      case 'is_null':
        if (text != 'true' && text != 'false') throw badRequest(`query.${key}: must be true or false`);
        where.push(`${expr(field)} IS ${text == 'true' ? '' : 'NOT '}NULL`);
        break;
    }
  }
  // Soft-deleted objects stay out of lists unless the query asks about deleted_at.
  if (!deletedFiltered) where.push('deleted_at = 0');

  let order = 'id';
  const orderBy = query.order_by;
  if (typeof orderBy == 'string') {
    const desc = orderBy.startsWith('-');
    const field = desc ? orderBy.slice(1) : orderBy;
    if (!fields.has(field)) throw badRequest(`query.order_by: unknown field ${field}`);
    const key = COLUMNS.has(field) ? field : d.jsonSortKey('data', `$.${field}`);
    order = field == 'id' ? `id ${desc ? 'DESC' : ''}` : `${key} ${desc ? 'DESC' : ''}, id ${desc ? 'DESC' : ''}`;
  }
  return { where, args, order };
}
