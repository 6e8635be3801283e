import type { ListSpec } from '../common/list-query';
import { USER_LIST } from '../users/user-list';

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
      created_by: { relation: 'createdBy', spec: () => USER_LIST },
      modified_by: { relation: 'modifiedBy', spec: () => USER_LIST },
      ...extra.relations,
    },
    search: ['name', 'description'],
  };
}
