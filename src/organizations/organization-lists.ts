import type { ListSpec } from '../common/list-query/list-spec';
import { roleNameSql } from './role-names';

/** SPEC §21: what the organizations list may be filtered and ordered on; `role_level` is read by the list. */
export const ORGANIZATION_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    name: { property: 'name', type: 'string' },
    description: { property: 'description', type: 'string' },
    created: { property: 'created', type: 'datetime' },
    modified: { property: 'modified', type: 'datetime' },
    max_hosts: { property: 'maxHosts', type: 'int' },
  },
  search: ['name', 'description'],
  roleLevel: true,
};

/**
 * A team's organization, through `organization__…`: the fields of its summary only (`id`, `name`,
 * `description`), which every caller who sees the team sees, so nothing beyond them can be counted.
 */
const TEAM_ORGANIZATION: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    name: { property: 'name', type: 'string' },
    description: { property: 'description', type: 'string' },
  },
  search: ['name', 'description'],
};

export const TEAM_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    name: { property: 'name', type: 'string' },
    description: { property: 'description', type: 'string' },
    created: { property: 'created', type: 'datetime' },
    modified: { property: 'modified', type: 'datetime' },
  },
  relations: {
    organization: { relation: 'organization', spec: () => TEAM_ORGANIZATION, summary: ['id', 'name', 'description'], readableBy: () => true },
  },
  search: ['name', 'description'],
  roleLevel: true,
};

/** Roles filter on `id` and `name` (AWX's `Admin`, `Member`, `Auditor`, computed from the role's field). */
export const ROLE_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    name: { property: 'roleField', type: 'string', expression: roleNameSql },
  },
  search: ['name'],
};
