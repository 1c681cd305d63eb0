/** Deleting a contact property, everywhere it was used: its definition, its values on contacts (a
 * property created again under that name starts empty, its old versions hidden), and its
 * conditions in dynamic list filters. Forms stop asking for it on their own (store/forms/definition.ts reads
 * a form's fields against the live properties). Runs inside the request's write: all or nothing. */
import type { Queryable } from '../db/engine';
import type { ContactStore } from '../store/contacts';
import type { ListStore } from '../store/lists';
import type { PropertyStore } from '../store/properties';

export function propertyRemoval(properties: PropertyStore, contacts: ContactStore, lists: ListStore) {
  return (db: Queryable, portalId: number, name: string) =>
    db.tx(async (t) => {
      await properties.remove(t, portalId, name);
      await contacts.forgetProperty(t, portalId, name);
      await lists.forgetProperty(t, portalId, name);
    });
}
