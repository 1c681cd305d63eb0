/** The cookie names the tracker writes and the servers read (the companion, its collector proxy,
 * the demo site). A renamed cookie would silently make every visitor unknown on the other side,
 * so each name is written here once. Formats are described in packages/tracker/README.md. */

/** The visitor token (the utk, see ./utk.ts); also what a form submission links to the contact. */
export const UTK_COOKIE = 'svcutk';
/** `domainHash.utk.firstVisit.previousVisit.currentVisit.sessionNumber` */
export const VISITOR_COOKIE = '__svctc';
/** `domainHash.pageViews.sessionStart`, 30 minutes after the last send. */
export const SESSION_COOKIE = '__svcsc';
/** `1` until the browser closes: without it a new session starts. */
export const RESTART_COOKIE = '__svcsrc';
/** `yes`: the visitor asked not to be tracked (`doNotTrack`). */
export const DNT_COOKIE = '__svc_do_not_track';
/** The consent decision, {@link OPTED_IN} or {@link OPTED_OUT}; kept 13 months. */
export const OPT_OUT_COOKIE = '__svc_opt_out';
/** {@link OPT_OUT_COOKIE} when the visitor gave consent. */
export const OPTED_IN = 'no';
/** {@link OPT_OUT_COOKIE} when the visitor declined: servers treat them as unknown. */
export const OPTED_OUT = 'yes';
