/** A content v2 list query (`name__icontains=spring&created__gt=…&order_by=-publish_date`) as SQL.
 * Field names are checked against the collection's record keys before they reach the SQL, so only
 * known identifiers are ever interpolated; values are always bound. */
import { badRequest } from '../../domain/errors';

/** Fields with a generated, indexable column (see content_objects in db/schema.ts). */
const COLUMNS = new Set(['id', 'deleted_at', 'created', 'updated', 'name', 'slug', 'state', 'publish_date', 'content_group_id']);

const OPS = ['eq', 'ne', 'contains', 'icontains', 'gt', 'gte', 'lt', 'lte', 'in', 'range', 'is_null'] as const;
type Op = (typeof OPS)[number];

/** Query keys that are not field filters. */
const NOT_FILTERS = new Set(['limit', 'offset', 'order_by', 'casing']);

export interface ListSql {
  where: string[];
  args: unknown[];
  order: string;
}

const expr = (field: string) => (COLUMNS.has(field) ? field : `json_extract(data, '$.${field}')`);

/** A query-string value as SQLite compares it: numbers as numbers, true/false as 1/0 (how
 * json_extract reads JSON booleans), anything else as text. */
function value(raw: string): unknown {
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (raw == 'true' || raw == 'false') return raw == 'true' ? 1 : 0;
  return raw;
}

/** `query` holds the validated list query; `fields` the record keys that may be filtered on. */
export function listSql(query: Record<string, unknown>, fields: ReadonlySet<string>): ListSql {
  const where: string[] = [];
  const args: unknown[] = [];
  let deletedFiltered = false;
  for (const [key, raw] of Object.entries(query)) {
    if (NOT_FILTERS.has(key) || raw === undefined) continue;
    const [field, op = 'eq'] = key.split('__') as [string, Op | undefined];
    if (!fields.has(field)) throw badRequest(`query.${key}: unknown field ${field}`);
    if (!OPS.includes(op as Op)) throw badRequest(`query.${key}: unknown operator ${op}; use one of ${OPS.join(', ')}`);
    // Some filters arrive parsed by the catalog (`archived` a boolean, `folder_id` a number).
    const text = typeof raw == 'boolean' || typeof raw == 'number' ? String(raw) : raw;
    if (typeof text != 'string') throw badRequest(`query.${key}: give it once`);
    if (field == 'deleted_at') deletedFiltered = true;
    const e = expr(field);
    switch (op as Op) {
      case 'eq':
        where.push(`${e} = ?`), args.push(value(text));
        break;
      case 'ne':
        where.push(`(${e} IS NULL OR ${e} != ?)`), args.push(value(text));
        break;
      case 'contains':
        where.push(`instr(${e}, ?) > 0`), args.push(text);
        break;
      case 'icontains':
        where.push(`instr(lower(${e}), lower(?)) > 0`), args.push(text);
        break;
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const sign = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op as 'gt'];
        where.push(`${e} ${sign} ?`), args.push(value(text));
        break;
      }
      case 'in': {
        const items = text.split(',');
        where.push(`${e} IN (${items.map(() => '?').join(', ')})`), args.push(...items.map(value));
        break;
      }
      case 'range': {
        const [from, to, extra] = text.split(',');
        if (from === undefined || to === undefined || extra !== undefined) throw badRequest(`query.${key}: must be two values, from,to`);
        where.push(`${e} BETWEEN ? AND ?`), args.push(value(from), value(to));
        break;
      }
      case 'is_null':
        if (text != 'true' && text != 'false') throw badRequest(`query.${key}: must be true or false`);
        where.push(`${e} IS ${text == 'true' ? '' : 'NOT '}NULL`);
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
    order = field == 'id' ? `id ${desc ? 'DESC' : ''}` : `${expr(field)} ${desc ? 'DESC' : ''}, id ${desc ? 'DESC' : ''}`;
  }
  return { where, args, order };
}
