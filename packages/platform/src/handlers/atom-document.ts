/** Answers of the older blog API (§4.9) in Atom, for reads with the `.atom` suffix. */
import { XMLBuilder } from 'fast-xml-parser';

const builder = new XMLBuilder({ ignoreAttributes: false, format: true, suppressEmptyNode: true });
const ATOM_NS = 'http://www.w3.org/2005/Atom';

/** An Atom document: a feed of entries, or one entry. */
export function atomDocument(root: 'feed' | 'entry', content: Record<string, unknown>) {
  return `<?xml version="1.0" encoding="utf-8"?>\n${builder.build({ [root]: { '@_xmlns': ATOM_NS, ...content } })}`;
}
