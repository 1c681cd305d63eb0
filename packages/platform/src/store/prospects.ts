/** Prospects (§4.10, reference §12): the organisations a portal's visitors come from. A page view
 * from an address that the IP → organisation mapping knows is kept with that organisation; the
 * timeline sums them per organisation (page views, visitors, visitors who became contacts),
 * newest first. Organisations can be hidden from the timeline and searches, and shown again. */
import { z } from 'zod';
import { type Engine, type Queryable, sql } from '../db/engine';
import { notFound } from '../domain/errors';
import { slugify } from './content/collections';

/** Where an address comes from: addresses starting with `prefix` belong to `organization`. */
export interface IpOrganization {
  prefix: string;
  organization: string;
  city?: string;
  region?: string;
  country?: string;
  latitude?: number;
  longitude?: number;
}

const mappingSchema = z.array(
  z.object({
    prefix: z.string().min(1),
    organization: z.string().min(1),
    city: z.string().optional(),
    region: z.string().optional(),
    country: z.string().optional(),
    latitude: z.number().optional(),
    longitude: z.number().optional(),
  }),
);

/** A mapping from a JSON file (the CLI's `--prospects`); the message names what is wrong. */
export function parseMapping(text: string): IpOrganization[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('the prospects file is not JSON');
  }
  const result = mappingSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`the prospects file: ${['entry', ...issue.path].join('.')}: ${issue.message}`);
  }
  return result.data;
}

/** The built-in sample: the documentation address ranges (RFC 5737), so real traffic never
 * matches by accident. `PlatformOptions.prospects` replaces it. */
export const SAMPLE_ORGANIZATIONS: IpOrganization[] = [
  {
    prefix: '192.0.2.',
    organization: 'Acme Analytics',
    city: 'Boston',
    region: 'Massachusetts',
    country: 'United States',
    latitude: 42.36,
    longitude: -71.06,
  },
  {
    prefix: '198.51.100.',
    organization: 'Northwind Traders',
    city: 'London',
    region: 'England',
    country: 'United Kingdom',
    latitude: 51.51,
    longitude: -0.13,
  },
  {
    prefix: '203.0.113.',
    organization: 'Contoso Pharmaceuticals',
    city: 'Berlin',
    region: 'Berlin',
    country: 'Germany',
    latitude: 52.52,
    longitude: 13.4,
  },
];

interface Summary {
  organization: string;
  views: number;
  visitors: number;
  leads: number;
  last_at: number;
}

export interface ProspectPaging {
  count?: number;
  timeOffset?: number;
  orgOffset?: string;
}

export type SearchType = 'city' | 'region' | 'country';

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function prospectStore(engine: Engine, organizations: IpOrganization[] = SAMPLE_ORGANIZATIONS) {
  const byName = new Map(organizations.map((o) => [o.organization, o]));
  const organizationOf = (ip: string) => {
    const address = ip.replace(/^::ffff:/, '');
    return organizations.find((o) => address.startsWith(o.prefix));
  };
  const bySlug = new Map(organizations.map((o) => [slugify(o.organization), o]));
  const q = {
    view: sql<[number, string, string, string, string | null, number]>(
      'INSERT INTO prospect_views (portal_id, organization, ip, utk, url, timestamp) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    latest: sql<[number, string], { ip: string; url: string | null }>(
      'SELECT ip, url FROM prospect_views WHERE portal_id = ? AND organization = ? ORDER BY timestamp DESC, seq DESC LIMIT 1',
    ),
    urls: sql<[number, string], { url: string }>(
      'SELECT DISTINCT url FROM prospect_views WHERE portal_id = ? AND organization = ? AND url IS NOT NULL',
    ),
    hide: sql<[number, string]>(
      'INSERT INTO prospect_hidden (portal_id, organization) VALUES (?, ?) ON CONFLICT DO NOTHING',
    ),
    unhide: sql<[number, string]>('DELETE FROM prospect_hidden WHERE portal_id = ? AND organization = ?'),
    hidden: sql<[number], { organization: string }>(
      'SELECT organization FROM prospect_hidden WHERE portal_id = ? ORDER BY organization',
    ),
  };

  /** Per organisation, newest first; `where` narrows which organisations (its parameters follow
   * the portal's). After a page (`paged`), the organisations older than its last, or as old and
   * after it by name: two more parameters, the time and the name. The aggregate is repeated in
   * HAVING since PostgreSQL does not see the select list's names there. */
  const summarySql = (where: string, paged: boolean) =>
    sql<(string | number)[], Summary>(`
    SELECT v.organization, count(*) AS views, count(DISTINCT v.utk) AS visitors,
           count(DISTINCT CASE WHEN u.vid IS NOT NULL THEN v.utk END) AS leads, max(v.timestamp) AS last_at
    FROM prospect_views v LEFT JOIN utks u ON u.portal_id = v.portal_id AND u.utk = v.utk AND v.utk != ''
    WHERE v.portal_id = ? ${where}
    GROUP BY v.organization
    ${paged ? 'HAVING max(v.timestamp) < ? OR (max(v.timestamp) = ? AND v.organization > ?)' : ''}
    ORDER BY last_at DESC, v.organization
    LIMIT ?`);
  const visible = 'AND v.organization NOT IN (SELECT organization FROM prospect_hidden WHERE portal_id = ?)';
  const among = `${visible} AND ${engine.dialect.inJsonArray('v.organization', '?', 'text')}`;
  /** The first page, and a later one, of each kind. */
  const q2 = {
    timeline: [summarySql(visible, false), summarySql(visible, true)],
    one: summarySql('AND v.organization = ?', false),
    among: [summarySql(among, false), summarySql(among, true)],
  };

  /** An organisation named by its name or its slug. */
  const nameOf = (nameOrSlug: string) => bySlug.get(nameOrSlug)?.organization ?? nameOrSlug;

  async function record(db: Queryable, portalId: number, s: Summary) {
    const o = byName.get(s.organization);
    const latest = await db.get(q.latest, portalId, s.organization);
    const domains = [
      ...new Set(
        (await db.all(q.urls, portalId, s.organization)).flatMap(({ url }) =>
          URL.canParse(url) ? [new URL(url).hostname] : [],
        ),
      ),
    ];
    return {
      slug: slugify(s.organization),
      organization: s.organization,
      'page-views': s.views,
      visitors: s.visitors,
      leads: s.leads,
      timestamp: s.last_at,
      city: o?.city ?? '',
      region: o?.region ?? '',
      country: o?.country ?? '',
      url: latest?.url ?? '',
      longitude: o?.longitude ?? 0,
      latitude: o?.latitude ?? 0,
      'ip-address': latest?.ip ?? '',
      touches: domains.map((domain) => ({ domain })),
    };
  }

  /** One page of summaries: asks for one more than the page to know whether more follow. `where`:
   * the parameters of the kind's condition. */
  async function page(
    db: Queryable,
    portalId: number,
    kind: 'timeline' | 'among',
    paging: ProspectPaging,
    where: (string | number)[],
  ) {
    const limit = paging.count ?? 20;
    const [first, later] = q2[kind];
    const rows =
      paging.timeOffset == null
        ? await db.all(first, portalId, ...where, limit + 1)
        : await db.all(
            later,
            portalId,
            ...where,
            paging.timeOffset,
            paging.timeOffset,
            paging.orgOffset ?? '',
            limit + 1,
          );
    const more = rows.length > limit;
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    const prospects = [];
    for (const s of shown) prospects.push(await record(db, portalId, s));
    return {
      prospects,
      'has-more': more,
      timeOffset: more && last ? last.last_at : null,
      orgOffset: more && last ? last.organization : null,
    };
  }

  return {
    /** A page view from `ip` (from the collector): kept when the address maps to an organisation;
     * then the write to wait for, else nothing (no promise for the common case). */
    /** The country of address `ip`, when the mapping knows it. */
    countryOf: (ip: string) => organizationOf(ip)?.country,
    pageView(
      db: Queryable,
      portalId: number,
      ip: string,
      utk: string,
      url: string | undefined,
      timestamp: number,
    ): Promise<number> | undefined {
      const address = ip.replace(/^::ffff:/, '');
      const org = organizationOf(address);
      return org && db.run(q.view, portalId, org.organization, address, utk, url ?? null, timestamp);
    },
    timeline: (db: Queryable, portalId: number, paging: ProspectPaging) =>
      page(db, portalId, 'timeline', paging, [portalId]),
    async organization(db: Queryable, portalId: number, slug: string) {
      const org = bySlug.get(slug) ?? byName.get(slug);
      const summary = org && (await db.get(q2.one, portalId, org.organization, 1));
      if (!summary) throw notFound(`no prospect organization ${slug}`);
      return record(db, portalId, summary);
    },
    /** Organisations whose city, region or country contains `text` (any case). */
    search(db: Queryable, portalId: number, type: SearchType, text: string, paging: ProspectPaging) {
      const orgs = organizations
        .filter((o) => (o[type] ?? '').toLowerCase().includes(text.toLowerCase()))
        .map((o) => o.organization);
      return page(db, portalId, 'among', paging, [portalId, JSON.stringify(orgs)]);
    },
    hide: async (db: Queryable, portalId: number, organization: string) =>
      void (await db.run(q.hide, portalId, nameOf(organization))),
    async unhide(db: Queryable, portalId: number, organization: string) {
      if (!(await db.run(q.unhide, portalId, nameOf(organization)))) throw notFound(`${organization} is not hidden`);
    },
    hidden: (db: Queryable, portalId: number) => db.all(q.hidden, portalId),
  };
}

export type ProspectStore = ReturnType<typeof prospectStore>;
