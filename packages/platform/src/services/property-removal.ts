/** Deleting a contact property, everywhere it was used: its definition, its values on contacts (a
 * property created again under that name starts empty, its old versions hidden), and its
 * conditions in dynamic list filters. Forms stop asking for it on their own (store/forms.ts reads
 * a form's fields against the live properties). Runs inside the request's write: all or nothing. */
import type { ContactStore } from '../store/contacts';
import type { ListStore } from '../store/lists';
import type { PropertyStore } from '../store/properties';

export function propertyRemoval(properties: PropertyStore, contacts: ContactStore, lists: ListStore) {
  return (portalId: number, name: string) => {
    properties.remove(portalId, name);
    contacts.forgetProperty(portalId, name);
    lists.forgetProperty(portalId, name);
  };
}
