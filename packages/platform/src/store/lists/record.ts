/** A list as the API answers it, and what a write of one may give. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import type { ListFilters } from '../list-filters';
import type { ListRow } from './sql';

export interface ListWrite {
  name?: string;
  dynamic?: boolean;
  filters?: ListFilters;
}

export type ListRecord = z.input<typeof schemas.contactList>;
export type MembershipChange = z.output<typeof schemas.membershipChange>;
export function record(row: ListRow): ListRecord {
  return {
    listId: row.list_id,
    internalListId: row.internal_list_id,
    portalId: row.portal_id,
    name: row.name,
    dynamic: !!row.dynamic,
    listType: row.dynamic ? 'DYNAMIC' : 'STATIC',
    archived: false,
    deleteable: true,
    deleted: false,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    filters: JSON.parse(row.filters) as ListFilters,
    // Evaluation is part of the write: a list is always processed by the time anyone reads it.
    metaData: {
      processing: 'DONE',
      size: row.size,
      error: '',
      lastProcessingStateChangeAt: row.processed_at,
      lastSizeChangeAt: Math.max(Number(row.size_changed_at), Number(row.last_added ?? 0)),
      listReferencesCount: null,
    },
  };
}
