import type { ListSpec } from '../common/list-query/list-spec';
import { ownerUser, relatedUser } from '../users/user-list';

type Fields = ListSpec['fields'];

/** The fields every owned resource lists (AWX's common ones), plus its own. */
export function ownedResourceList(own: Fields, extra: Partial<ListSpec> = {}): ListSpec {
  return {
    fields: {
      id: { property: 'id', type: 'int' },
      name: { property: 'name', type: 'string' },
      description: { property: 'description', type: 'string' },
      created: { property: 'created', type: 'datetime' },
      modified: { property: 'modified', type: 'datetime' },
      ...own,
    },
    relations: {
      // The caller owns what it sees, unless it reads everything; anyone may have changed it last.
      created_by: ownerUser('createdBy'),
      modified_by: relatedUser('modifiedBy'),
      ...extra.relations,
    },
    search: ['name', 'description'],
  };
}
