/** The utk (visitor token) format: 32 lower-case hex characters, 128 random bits. The tracker
 * creates it, the collector refuses an event whose `vi` is not one, and the catalog refuses one
 * in a form submission or a server-side event, so no side can link a token the others reject.
 * Event ids (`eid`) have the same format. */

/** 32 lower-case hex characters, nothing around them. */
export const UTK_PATTERN = /^[0-9a-f]{32}$/;

/** A well-formed utk (or event id). Anything that is not a string is not one. */
export const isUtk = (value: unknown): value is string => typeof value == 'string' && UTK_PATTERN.test(value);
