import type { ListSpec } from '../common/list-query/list-spec';
import { ownedResourceList } from '../resources/resource-lists';
import { ownerUser, readsEverything } from '../users/user-list';

const PROMPTS = ['limit', 'variables', 'inventory', 'credential', 'job_type', 'tags', 'skip_tags', 'diff_mode', 'verbosity', 'scm_branch'];
const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The fields job templates and jobs share (AWX's JobOptions). */
const JOB_OPTIONS: ListSpec['fields'] = {
  job_type: { property: 'jobType', type: 'string' },
  inventory: { property: 'inventoryId', type: 'fk' },
  project: { property: 'projectId', type: 'fk' },
  playbook: { property: 'playbook', type: 'string' },
  // A job template's `limit` field: `?limit=` filters on it (SPEC §19 reserves the word otherwise).
  limit: { property: 'limit', type: 'string' },
  extra_vars: { property: 'extraVars', type: 'string' },
};

export const JOB_TEMPLATE_LIST: ListSpec = ownedResourceList({
  ...JOB_OPTIONS,
  ...Object.fromEntries(PROMPTS.map((p) => [`ask_${p}_on_launch`, { property: camel(`ask_${p}_on_launch`), type: 'bool' as const }])),
  survey_enabled: { property: 'surveyEnabled', type: 'bool' },
});

export const JOB_LIST: ListSpec = ownedResourceList(
  {
    ...JOB_OPTIONS,
    status: { property: 'status', type: 'string' },
    launch_type: { property: 'launchType', type: 'string' },
  },
  {
    relations: {
      // A job's summary shows its template's id, name and description. Only a template's owner (or a superuser,
      // who reads everything) launches it, so the caller's jobs are of its own templates.
      job_template: {
        relation: 'jobTemplate', spec: () => JOB_TEMPLATE_LIST, summary: ['id', 'name', 'description'], readableBy: readsEverything, tiedToViewer: 'createdById',
      },
      launched_by: ownerUser('createdBy'),
    },
  },
);
