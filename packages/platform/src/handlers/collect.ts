/** The tracking collector's routes (catalog `collect.*`): wire events through tracking intake. A
 * batch keeps its valid events when others are refused (the tracker drops a batch answered 400);
 * a batch whose every event needs a tier the portal lacks is a 403. */
import { wireEvent } from '@svc/api';
import { PlatformError } from '../domain/errors';
import type { Services } from '../services';
import { fromWire, type Intake } from '../services/tracking-intake';
import type { TrackedEvent } from '../store/tracking';
import { GIF } from './gif';
import { Reply, type Handlers } from './handler';

/** A wire event checked by the catalog's schema (the protocol's check), or why it is not one. */
function read(raw: unknown, where: string): TrackedEvent | Intake {
  const checked = wireEvent.safeParse(raw);
  return checked.success ? fromWire(checked.data) : { kept: false, reason: 'invalid', message: `${where}: ${checked.error.issues[0].message}` };
}

const refusal = (i: Intake) => (i.kept ? undefined : new PlatformError(i.reason == 'tier-required' ? 'forbidden' : i.reason == 'unknown-portal' ? 'not-found' : 'invalid', i.message, i.reason == 'tier-required' ? { category: 'TIER_REQUIRED' } : {}));

export function collectHandlers({ intake }: Services): Handlers {
  return {
    'collect.batch': ({ body, ip }) => {
      const readAll = body.map((raw, i) => read(raw, `event ${i}`));
      const events = readAll.filter((r): r is TrackedEvent => 'eid' in r);
      const kept = intake.acceptAll(events, ip);
      const outcomes = readAll.map((r) => ('eid' in r ? kept.shift()! : r));
      const out = { accepted: 0, duplicates: 0, rejected: [] as { eid?: unknown; message: string }[] };
      outcomes.forEach((o, i) => {
        if (o.kept) out.accepted++;
        else if (o.reason == 'duplicate') out.duplicates++;
        else out.rejected.push({ eid: (body[i] as { eid?: unknown } | null)?.eid, message: o.message });
      });
      if (outcomes.every((o) => !o.kept && o.reason == 'tier-required')) throw refusal(outcomes[0]);
      return out;
    },

    'collect.pixel': ({ query, ip }) => {
      const event = read(query, 'query');
      const outcome = 'eid' in event ? intake.accept(event, ip) : event;
      const refused = outcome.kept || outcome.reason == 'duplicate' ? undefined : refusal(outcome);
      if (refused) throw refused;
      return new Reply(200, GIF, { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' });
    },
  };
}
