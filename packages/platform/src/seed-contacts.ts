/** Synthetic contacts for demos and benchmarks, written in batches of 1,000. */
import type { Services } from './services';

const FIRST = ['Ada', 'Grace', 'Linus', 'Margaret', 'Alan', 'Barbara', 'Ken', 'Radia', 'Dennis', 'Frances', 'Edsger', 'Hedy'];
const LAST = ['Lovelace', 'Hopper', 'Torvalds', 'Hamilton', 'Turing', 'Liskov', 'Thompson', 'Perlman', 'Ritchie', 'Allen', 'Dijkstra', 'Lamarr'];
const COMPANY = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Tyrell'];

/** Adds `count` contacts (`user<N>@example.test`) to the portal; `onProgress(done)` after each
 * batch (each a write of its own, as a request's: dynamic lists hear of its contacts). */
export async function seedContacts(services: Services, portalId: number, count: number, onProgress: (done: number) => void = () => {}) {
  const start = (await services.contacts.statistics(services.engine, portalId)).contacts;
  for (let done = 0; done < count; ) {
    const size = Math.min(1000, count - done);
    await services.write((t) => services.contacts.batch(
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
    ));
    done += size;
    onProgress(done);
  }
}
