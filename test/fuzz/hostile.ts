/** Inputs a careless client or an attacker sends: strings that break decoders and parsers,
 * numbers beyond every integer type, JSON nested past any sane depth, XML with hostile names and
 * entities. Shared by the platform's and the companion's fuzz tests. */
import fc from 'fast-check';

/** Strings known to break something somewhere, then random ones. */
const NASTY = [
  '',
  ' ',
  '%',
  '%ZZ',
  '%E0%A4%A',
  '%00',
  '..',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  '-1',
  '0',
  '-0',
  '1.5',
  '1e400',
  '0x10',
  '99999999999999999999',
  '-99999999999999999999',
  '9007199254740993',
  '18446744073709551616',
  'true',
  '[]',
  '{}',
  '\u0000',
  '\uD800',
  '\uFFFF',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  '$where',
  '{"$gt":""}',
  'a'.repeat(2000),
  'é'.repeat(300),
  '😀'.repeat(100),
];

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
);

/** Any JSON value, its strings hostile, a few levels deep. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileText,
    fc.constantFrom(null, true, false, 0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.1),
    fc.integer(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileText, fc.constantFrom('__proto__', 'constructor')), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** JSON text nested `depth` levels (arrays or objects), which a recursive walker may not survive. */
export const deepJson = (depth: number, kind: 'array' | 'object') =>
  kind == 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** A JSON body: an object with the schema's own keys holding hostile values (to get past the
 * first checks), any JSON value, JSON nested very deeply, or text that is not JSON. */
export const jsonBody = (keys: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .dictionary(keys.length ? fc.constantFrom(...keys) : hostileText, hostileJson, {
          maxKeys: Math.max(1, keys.length),
        })
        .map((o) => JSON.stringify(o)),
    },
    { weight: 2, arbitrary: hostileJson.map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.integer({ min: 500, max: 5000 }),
          fc.constantFrom('array' as const, 'object' as const),
          keys.length ? fc.constantFrom(...keys) : fc.constant('a'),
        )
        .map(([d, k, key]) => `{${JSON.stringify(key)}:${deepJson(d, k)}}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('null', '', '{', '{"a":', '[1,]', 'nul', '"x"', '1e999', '\u0000') },
  );

/** Atom entries: well-formed with hostile text, hostile element names, deep nesting, entities. */
export const atomBody: fc.Arbitrary<string> = fc.oneof(
  hostileText.map(
    (t) => `<entry xmlns="http://www.w3.org/2005/Atom"><title>${t}</title><content>${t}</content></entry>`,
  ),
  fc
    .constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty')
    .map((n) => `<entry><${n}>x</${n}><title>t</title></entry>`),
  fc.integer({ min: 200, max: 5000 }).map((d) => `<entry>${'<a>'.repeat(d)}x${'</a>'.repeat(d)}</entry>`),
  fc.constant(
    '<?xml version="1.0"?><!DOCTYPE e [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><entry><title>&c;</title></entry>',
  ),
  fc.constantFrom('', '<', '<entry>', 'not xml', '<entry><title>unclosed</entry>'),
);

/** A path segment: hostile text percent-encoded, or raw percent signs that decode to nothing. */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileText.map((t) => encodeURIComponent(t.replace(/[\uD800-\uDFFF]/g, '')) || '%20') },
  { weight: 1, arbitrary: fc.constantFrom('%ZZ', '%', '%E0%A4%A', '%C0%AF', '..%2F..', '%00') },
);

/** Query values for the given keys (some repeated, some extra keys). */
export const queryString = (keys: readonly string[]): fc.Arbitrary<string> =>
  fc
    .array(fc.tuple(keys.length ? fc.oneof(fc.constantFrom(...keys), hostileText) : hostileText, hostileText), {
      maxLength: 5,
    })
    .map((pairs) =>
      pairs
        .map(
          ([k, v]) =>
            `${encodeURIComponent(k.replace(/[\uD800-\uDFFF]/g, ''))}=${encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, ''))}`,
        )
        .join('&'),
    );
