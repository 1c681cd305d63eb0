import { Reply } from './handler';

/** The 1×1 transparent GIF the tracking pixels answer (the collector's and the events API's). */
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** A pixel's answer: the GIF, never cached. */
export const gifReply = () => new Reply(200, GIF, { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' });
