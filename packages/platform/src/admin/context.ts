/** What every admin sub-router (admin/*-routes.ts) is given: the platform's services and engine,
 * and the parts of the twin that live beside the servers (fault rules, the request journal, the
 * tokens issued). One object, so that a new area (clock, snapshots) adds a field here and a file
 * of routes, and router.ts mounts it. */
import type { Engine, Transaction } from '../db/engine';
import type { FaultRules } from '../http/faults';
import type { RequestJournal } from '../http/journal';
import type { ClockControl } from '../services/clock-advance';
import type { Snapshots } from '../services/snapshot';
import type { Services } from '../services/wiring';

export interface AdminLog {
  warn: (obj: object, msg: string) => void;
  error: (obj: object, msg: string) => void;
}

export interface AdminContext {
  services: Services;
  engine: Engine;
  log: AdminLog;
  /** The fault rules the servers' front applies (http/twin-front.ts). */
  faults: FaultRules;
  /** The last requests to both servers. */
  journal: RequestJournal;
  /** Seeds what a portal had beyond a new portal's defaults, after a reset emptied it (the demo
   * portal's forms, lists and workflow; nothing for others). In the reset's transaction. */
  reseed: (t: Transaction, portal: { id: number; name: string }, now: number) => Promise<void>;
  /** The platform's clock: its time, and moving it with what falls due on the way. */
  clock: ClockControl;
  /** The whole state as one file, and back (services/snapshot.ts). */
  snapshots: Snapshots;
}
