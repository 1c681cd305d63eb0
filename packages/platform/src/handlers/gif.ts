/** The 1×1 transparent GIF the tracking pixels answer (the collector's and the events API's). */
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
