/** The admin API's fault rules: which requests the platform answers badly on purpose, the way the
 * real one can fail (a 429 with its rate-limit headers, a 5xx, a slow answer, a dropped
 * connection). Rules are kept in order and the first whose criteria all match a request decides
 * it: its probability (drawn from its own seeded generator, so a seed repeats a run) says whether
 * it fires, and `times` counts the firings down (the rule goes at 0). No other rule is tried. */

export interface FaultSpec {
  /** A catalog route id (`contacts.getByVid`). */
  route?: string;
  method?: string;
  /** A path pattern: `*` any characters (slashes too), `:name` one segment; the whole path. */
  path?: string;
  portalId?: number;
  /** In [0, 1]; default 1. */
  probability?: number;
  seed?: number;
  /** How many times it fires before it goes; default: until deleted. */
  times?: number;
  /** The status answered (4xx or 5xx). */
  status?: number;
  /** Seconds, for `Retry-After` (429 and 503; a 429 says 1 without it). */
  retryAfter?: number;
  /** A wait before the answer (or the drop): ms, or [min, max] for a uniform draw. */
  latencyMs?: number | [number, number];
  /** The connection closed with no answer at all. */
  drop?: boolean;
}

/** What a request gets: a wait, then an answer or a drop (or on to the platform after the wait). */
export interface FaultEffect {
  id: string;
  latencyMs: number;
  status?: number;
  retryAfter?: number;
  drop?: boolean;
}

/** What a rule looks at; `portalId` is asked only when a rule names a portal (a database read). */
export interface FaultRequest {
  method: string;
  path: string;
  route: string | undefined;
  portalId: () => Promise<number | undefined>;
}

/** mulberry32: small, fast and, seeded, the same sequence on every run. */
function generator(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `*` any characters, `:name` one segment, everything else itself. */
export function pathPattern(pattern: string) {
  const source = pattern
    .split(/(\*|:[A-Za-z_][A-Za-z0-9_]*)/)
    .map((part) => (part == '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

interface Rule {
  spec: FaultSpec;
  id: string;
  path?: RegExp;
  random: () => number;
  remaining?: number;
  fired: number;
}

export function faultRules() {
  let rules: Rule[] = [];
  let made = 0;
  const matchesStatic = (r: Rule, q: FaultRequest) =>
    (r.spec.method === undefined || r.spec.method == q.method) &&
    (r.spec.route === undefined || r.spec.route == q.route) &&
    (r.path === undefined || r.path.test(q.path));

  /** The effect of `rule`, its draws made. */
  const effectOf = (r: Rule): FaultEffect => {
    const latency = r.spec.latencyMs;
    const latencyMs = Array.isArray(latency)
      ? Math.round(latency[0] + r.random() * (latency[1] - latency[0]))
      : (latency ?? 0);
    return { id: r.id, latencyMs, status: r.spec.status, retryAfter: r.spec.retryAfter, drop: r.spec.drop };
  };

  return {
    get size() {
      return rules.length;
    },
    add(spec: FaultSpec) {
      const id = `fault-${++made}`;
      rules.push({
        spec,
        id,
        path: spec.path === undefined ? undefined : pathPattern(spec.path),
        random: generator(spec.seed ?? Math.floor(Math.random() * 2 ** 32)),
        remaining: spec.times,
        fired: 0,
      });
      return id;
    },
    list: () => rules.map((r) => ({ id: r.id, ...r.spec, remaining: r.remaining ?? null, fired: r.fired })),
    remove(id: string) {
      const before = rules.length;
      rules = rules.filter((r) => r.id != id);
      return rules.length < before;
    },
    clear: () => void (rules = []),
    /** The effect for a request, or undefined: the first matching rule decides. */
    async pick(q: FaultRequest): Promise<FaultEffect | undefined> {
      let portal: Promise<number | undefined> | undefined;
      for (const r of rules) {
        if (!matchesStatic(r, q)) continue;
        if (r.spec.portalId !== undefined && (await (portal ??= q.portalId())) !== r.spec.portalId) continue;
        // Still there (another request may have used its last firing meanwhile).
        if (!rules.includes(r)) return undefined;
        if (r.random() >= (r.spec.probability ?? 1)) return undefined;
        r.fired++;
        if (r.remaining !== undefined && --r.remaining <= 0) rules = rules.filter((x) => x !== r);
        return effectOf(r);
      }
      return undefined;
    },
  };
}

export type FaultRules = ReturnType<typeof faultRules>;
