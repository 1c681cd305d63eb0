/** The tracking collector's routes (catalog `collect.*`): wire events through tracking intake. A
 * batch keeps its valid events when others are refused (the tracker drops a batch answered 400);
 * a batch whose every event needs a tier the portal lacks is a 403. */
import { checkWireEvent } from '@svc/protocol';
import type { Services } from '../services/wiring';
import { fromWire, refusalOf, type Intake } from '../services/tracking-intake';
import type { TrackedEvent } from '../store/tracking';
import { gifReply } from './gif';
import type { Handlers } from './handler';

/** A wire event checked by the protocol's check (the catalog's `wireEvent` schema is that check;
 * called directly it takes a fifth of the schema's time, on the platform's hottest path), or why it is not one. */
function read(raw: unknown, where: string): TrackedEvent | Intake {
  const checked = checkWireEvent(raw);
  return checked.ok
    ? fromWire(checked.event)
    : { kept: false, reason: 'invalid', message: `${where}: ${checked.problem}` };
}

export function collectHandlers({ intake, intakeBulk }: Services): Handlers {
  return {
    // Written in bulk with the batches that arrive meanwhile (services/intake-bulk.ts), not in
    // the request's own write: http/collector.ts runs it outside one.
    'collect.batch': async ({ body, ip }) => {
      const readAll = body.map((raw, i) => read(raw, `event ${i}`));
      const events = readAll.filter((r): r is TrackedEvent => 'eid' in r);
      const kept = await intakeBulk.accept(events, ip);
      const outcomes = readAll.map((r) => ('eid' in r ? kept.shift()! : r));
      const out = { accepted: 0, duplicates: 0, rejected: [] as { eid?: unknown; message: string }[] };
      outcomes.forEach((o, i) => {
        if (o.kept) out.accepted++;
        else if (o.reason == 'duplicate') out.duplicates++;
        else out.rejected.push({ eid: (body[i] as { eid?: unknown } | null)?.eid, message: o.message });
      });
      if (outcomes.every((o) => !o.kept && o.reason == 'tier-required')) throw refusalOf(outcomes[0])!;
      return out;
    },

    'collect.pixel': async ({ db, query, ip }) => {
      const event = read(query, 'query');
      const outcome = 'eid' in event ? await intake.accept(db, event, ip) : event;
      const refused = refusalOf(outcome);
      if (refused) throw refused;
      return gifReply();
    },
  };
}
