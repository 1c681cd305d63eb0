/** Synthetic contacts for demos and benchmarks, written in batches of 1,000. */
import type { Services } from './services/wiring';

const FIRST = [
  'Ada',
  'Grace',
  'Linus',
  'Margaret',
  'Alan',
  'Barbara',
  'Ken',
  'Radia',
  'Dennis',
  'Frances',
  'Edsger',
  'Hedy',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Torvalds',
  'Hamilton',
  'Turing',
  'Liskov',
  'Thompson',
  'Perlman',
  'Ritchie',
  'Allen',
  'Dijkstra',
  'Lamarr',
];
const COMPANY = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Tyrell'];

/** PostgreSQL: the tables seeding grows are analyzed at 10,000 contacts, at each doubling after, and
 * at the end. Plans of prepared statements are made from the statistics, and kept: a server that
 * runs without autovacuum (as some test machines do) kept the plan it made for a few hundred
 * contacts, a scan of the table: 200,000 contacts took 55 s (13 s with these), a million 13
 * minutes. ANALYZE reads a sample, a fraction of a second, and makes the statements plan again. */
const GROWING = ['contacts', 'contact_history'];
const ANALYZE_FIRST = 10_000;

/** Adds `count` contacts (`user<N>@example.test`) to the portal; `onProgress(done)` after each
 * batch (each a write of its own, as a request's: dynamic lists hear of its contacts). */
export async function seedContacts(
  services: Services,
  portalId: number,
  count: number,
  onProgress: (done: number) => void = () => {},
) {
  const start = (await services.contacts.statistics(services.engine, portalId)).contacts;
  let analyzeAt = ANALYZE_FIRST;
  for (let done = 0; done < count;) {
    const size = Math.min(1000, count - done);
    await services.write((t) =>
      services.contacts.batch(
        t,
        portalId,
        Array.from({ length: size }, (_, i) => {
          const n = start + done + i;
          return {
            email: `user${n}@example.test`,
            properties: [
              { property: 'firstname', value: FIRST[n % FIRST.length] },
              { property: 'lastname', value: LAST[(n * 7) % LAST.length] },
              { property: 'company', value: COMPANY[(n * 3) % COMPANY.length] },
            ],
          };
        }),
      ),
    );
    done += size;
    if (services.engine.kind == 'postgres' && (done >= analyzeAt || done == count)) {
      await services.engine.exec(`ANALYZE ${GROWING.join(', ')}`);
      analyzeAt *= 2;
    }
    onProgress(done);
  }
}
