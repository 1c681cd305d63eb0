/** Property definitions (contacts and deals) and property groups, with the validation of contact
 * writes against the property types. Definitions are cached per portal (db/shared-cache.ts). */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import { type Engine, type Queryable, sql } from '../db/engine';
import { sharedCache } from '../db/shared-cache';
import { badRequest, conflict, notFound } from '../domain/errors';

export type Property = z.output<typeof schemas.property>;
export type PropertyWrite = z.output<typeof schemas.propertyWrite>;
export type GroupWrite = z.output<typeof schemas.groupWrite>;
export type ObjectType = 'contacts' | 'deals';

export interface ValidationResult {
  isValid: false;
  message: string;
  error: string;
  name: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const isEmail = (s: string) => s.length <= 254 && EMAIL.test(s);

interface GroupRow {
  name: string;
  display_name: string;
  display_order: number;
  svc_defined: number;
}

export function propertyStore(engine: Engine, now: () => number) {
  const { jsonNumber } = engine.dialect;
  const q = {
    all: sql<[number, string], { definition: string }>(
      `SELECT definition FROM properties WHERE portal_id = ? AND object_type = ? ORDER BY ${jsonNumber('definition', '$.displayOrder')}, name`,
    ),
    insert: sql<[number, string, string, string]>(
      'INSERT INTO properties (portal_id, object_type, name, definition) VALUES (?, ?, ?, ?)',
    ),
    update: sql<[string, number, string, string]>(
      'UPDATE properties SET definition = ? WHERE portal_id = ? AND object_type = ? AND name = ?',
    ),
    remove: sql<[number, string, string]>(
      'DELETE FROM properties WHERE portal_id = ? AND object_type = ? AND name = ?',
    ),
    group: sql<[number, string, string], GroupRow>(
      'SELECT name, display_name, display_order, svc_defined FROM property_groups WHERE portal_id = ? AND object_type = ? AND name = ?',
    ),
    insertGroup: sql<[number, string, string, string, number]>(
      'INSERT INTO property_groups (portal_id, object_type, name, display_name, display_order, svc_defined) VALUES (?, ?, ?, ?, ?, 0)',
    ),
    updateGroup: sql<[string, number, number, string, string]>(
      'UPDATE property_groups SET display_name = ?, display_order = ? WHERE portal_id = ? AND object_type = ? AND name = ?',
    ),
    removeGroup: sql<[number, string, string]>(
      'DELETE FROM property_groups WHERE portal_id = ? AND object_type = ? AND name = ?',
    ),
  };

  /** Definitions by portal and object type (`62515/contacts`): read on every contact write. */
  const cacheKey = (portalId: number, type: ObjectType) => `properties/${portalId}/${type}`;
  const cache = sharedCache(
    engine,
    async (db, key) => {
      const [, portalId, type] = key.split('/');
      const rows = await db.all(q.all, Number(portalId), type);
      return new Map(
        rows.map((r) => [(JSON.parse(r.definition) as Property).name, JSON.parse(r.definition) as Property]),
      );
    },
    (defs) => defs.size > 0,
  );
  const definitions = (db: Queryable, portalId: number, type: ObjectType = 'contacts') =>
    cache.get(db, cacheKey(portalId, type));
  const changed = (db: Queryable, portalId: number, type: ObjectType) => cache.changed(db, cacheKey(portalId, type));

  const groupRecord = async (
    db: Queryable,
    portalId: number,
    type: ObjectType,
    row: GroupRow,
    withProperties: boolean,
  ) => ({
    name: row.name,
    displayName: row.display_name,
    displayOrder: row.display_order,
    svcDefined: !!row.svc_defined,
    ...(withProperties
      ? { properties: [...(await definitions(db, portalId, type)).values()].filter((p) => p.groupName == row.name) }
      : {}),
  });

  async function checkDefinition(
    db: Queryable,
    portalId: number,
    type: ObjectType,
    p: { groupName?: string; type?: string; fieldType?: string; options?: { value: string }[] },
  ) {
    if (p.groupName && !(await db.get(q.group, portalId, type, p.groupName)))
      throw badRequest(`groupName: no property group named '${p.groupName}'`);
    if (p.type == 'enumeration' && !p.options?.length)
      throw badRequest('options: an enumeration property needs options');
    if (p.type && p.type != 'enumeration' && p.options?.length)
      throw badRequest(`options: only enumeration properties have options`);
    const values = p.options?.map((o) => o.value) ?? [];
    if (new Set(values).size != values.length) throw badRequest('options: option values must be unique');
    const fits: Record<string, string[]> = {
      string: ['text', 'textarea', 'phonenumber', 'file'],
      number: ['number', 'text'],
      date: ['date', 'text'],
      datetime: ['date', 'text'],
      enumeration: ['select', 'radio', 'checkbox', 'booleancheckbox'],
      bool: ['booleancheckbox', 'radio', 'select'],
    };
    if (p.type && p.fieldType && !fits[p.type].includes(p.fieldType))
      throw badRequest(`fieldType: ${p.fieldType} does not fit a ${p.type} property (use ${fits[p.type].join(', ')})`);
  }

  async function get(db: Queryable, portalId: number, name: string, type: ObjectType = 'contacts') {
    const p = (await definitions(db, portalId, type)).get(name);
    if (!p) throw notFound(`Couldn't find a Property with the given name '${name}'`);
    return p;
  }

  async function getGroup(
    db: Queryable,
    portalId: number,
    name: string,
    withProperties: boolean,
    type: ObjectType = 'contacts',
  ) {
    const row = await db.get(q.group, portalId, type, name);
    if (!row) throw notFound(`Couldn't find a Group with the given name '${name}'.`);
    return groupRecord(db, portalId, type, row, withProperties);
  }

  return {
    /** Definitions were written outside this store (a portal's missing defaults added): the
     * cached ones, here and in other processes, are stale. */
    changed,
    definitions,
    get,
    getGroup,
    create: (db: Queryable, portalId: number, name: string, write: PropertyWrite, type: ObjectType = 'contacts') =>
      db.tx(async (t) => {
        if (write.name && write.name != name)
          throw badRequest(`name: '${write.name}' differs from the name in the path '${name}'`);
        if (!/^[a-z][a-z0-9_]{0,99}$/.test(name))
          throw badRequest('path.property_name: must be lower-case letters, digits and _');
        if ((await definitions(t, portalId, type)).has(name))
          throw conflict(`A property named '${name}' already exists.`);
        await checkDefinition(t, portalId, type, write);
        const at = now();
        const p: Property = {
          description: '',
          options: [],
          hidden: false,
          displayOrder: -1,
          formField: false,
          ...write,
          name,
          deleted: false,
          readOnlyValue: false,
          readOnlyDefinition: false,
          mutableDefinitionNotDeletable: false,
          calculated: false,
          externalOptions: false,
          displayMode: 'current_value',
          svcDefined: false,
          createdAt: at,
          updatedAt: at,
        };
        await t.run(q.insert, portalId, type, name, JSON.stringify(p));
        await changed(t, portalId, type);
        return p;
      }),
    update: (
      db: Queryable,
      portalId: number,
      name: string,
      write: Partial<PropertyWrite>,
      type: ObjectType = 'contacts',
    ) =>
      db.tx(async (t) => {
        const old = await get(t, portalId, name, type);
        if (old.readOnlyDefinition)
          throw badRequest(`The property '${name}' is defined by the platform and cannot be changed.`);
        if (write.name && write.name != name) throw badRequest('name: a property cannot be renamed');
        await checkDefinition(t, portalId, type, { ...old, ...write });
        const p = { ...old, ...write, name, updatedAt: now() };
        await t.run(q.update, JSON.stringify(p), portalId, type, name);
        await changed(t, portalId, type);
        return p;
      }),
    remove: (db: Queryable, portalId: number, name: string, type: ObjectType = 'contacts') =>
      db.tx(async (t) => {
        const old = await get(t, portalId, name, type);
        if (old.svcDefined)
          throw badRequest(`The property '${name}' is defined by the platform and cannot be deleted.`);
        await t.run(q.remove, portalId, type, name);
        await changed(t, portalId, type);
      }),
    createGroup: (db: Queryable, portalId: number, name: string, write: GroupWrite, type: ObjectType = 'contacts') =>
      db.tx(async (t) => {
        if (write.name && write.name != name)
          throw badRequest(`name: '${write.name}' differs from the name in the path '${name}'`);
        if (!/^[a-z][a-z0-9_]{0,99}$/.test(name))
          throw badRequest('path.group_name: must be lower-case letters, digits and _');
        if (await t.get(q.group, portalId, type, name)) throw conflict(`A group named '${name}' already exists.`);
        await t.run(q.insertGroup, portalId, type, name, write.displayName ?? '', write.displayOrder ?? -1);
        return getGroup(t, portalId, name, false, type);
      }),
    updateGroup: (db: Queryable, portalId: number, name: string, write: GroupWrite, type: ObjectType = 'contacts') =>
      db.tx(async (t) => {
        const old = await getGroup(t, portalId, name, false, type);
        if (old.svcDefined) throw badRequest(`The group '${name}' is defined by the platform and cannot be changed.`);
        await t.run(
          q.updateGroup,
          write.displayName ?? old.displayName,
          write.displayOrder ?? old.displayOrder,
          portalId,
          type,
          name,
        );
        return getGroup(t, portalId, name, false, type);
      }),
    /** Deletes a custom group; its properties move to `contactinformation`. */
    removeGroup: (db: Queryable, portalId: number, name: string, type: ObjectType = 'contacts') =>
      db.tx(async (t) => {
        const old = await getGroup(t, portalId, name, true, type);
        if (old.svcDefined) throw badRequest(`The group '${name}' is defined by the platform and cannot be deleted.`);
        for (const p of old.properties ?? [])
          await t.run(
            q.update,
            JSON.stringify({ ...p, groupName: type == 'contacts' ? 'contactinformation' : 'dealinformation' }),
            portalId,
            type,
            p.name,
          );
        await t.run(q.removeGroup, portalId, type, name);
        await changed(t, portalId, type);
      }),

    /** Checks contact property writes; returns the legacy `validationResults` (empty when valid). */
    async validate(
      db: Queryable,
      portalId: number,
      writes: { property: string; value: string }[],
      { allowReadOnly = false } = {},
    ) {
      const defs = await definitions(db, portalId);
      const results: ValidationResult[] = [];
      const fail = (name: string, error: string, message: string) =>
        results.push({ isValid: false, message, error, name });
      for (const { property: name, value } of writes) {
        const p = defs.get(name);
        if (!p || p.deleted) {
          fail(name, 'PROPERTY_DOESNT_EXIST', `Property "${name}" does not exist`);
          continue;
        }
        if (p.readOnlyValue && !allowReadOnly) {
          fail(name, 'READ_ONLY_VALUE', `Property "${name}" is read-only`);
          continue;
        }
        if (value === '') continue; // clears the value
        if (name == 'email' && !isEmail(value)) fail(name, 'INVALID_EMAIL', `Email address ${value} is invalid`);
        else if (p.type == 'number' && !/^-?\d+(\.\d+)?$/.test(value))
          fail(name, 'INVALID_NUMBER', `${value} is not a valid number`);
        else if (p.type == 'bool' && value != 'true' && value != 'false')
          fail(name, 'INVALID_BOOL', `${value} is not true or false`);
        else if (p.type == 'datetime' && !/^\d{1,15}$/.test(value))
          fail(name, 'INVALID_DATE', `${value} is not a timestamp in milliseconds`);
        else if (p.type == 'date' && !(/^\d{1,15}$/.test(value) && +value % 864e5 == 0))
          fail(name, 'INVALID_DATE', `${value} is not midnight UTC in milliseconds`);
        else if (p.type == 'enumeration') {
          const allowed = new Set(p.options.map((o) => o.value));
          const bad = value.split(';').filter((v) => !allowed.has(v));
          if (bad.length) fail(name, 'INVALID_OPTION', `${bad.join(';')} is not a valid option for ${name}`);
        }
      }
      return results;
    },
  };
}

export type PropertyStore = ReturnType<typeof propertyStore>;
