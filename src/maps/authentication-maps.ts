import { z } from 'zod';
import { reportErrors } from '../common/validation';
import { regexProblem } from '../database/linear-regex';

/**
 * AUTHENTICATION_MAPS (SPEC §21): an ordered list of rules after django-ansible-base's authenticator maps,
 * refused whole when one rule is wrong, each error naming its path (`AUTHENTICATION_MAPS[3].triggers.groups.has_or`).
 */

export const MAP_TYPES = ['allow', 'is_superuser', 'is_system_auditor', 'organization', 'team'] as const;
export type MapType = (typeof MAP_TYPES)[number];

export interface GroupsTrigger {
  has_or?: string[];
  has_and?: string[];
  has_not?: string[];
}

/** One attribute's test; `{}` is "present". */
export interface AttributeTest {
  equals?: string;
  contains?: string;
  ends_with?: string;
  in?: string[];
  matches?: string;
}

/** `join_condition` (default `or`) and one test per attribute name. */
export type AttributesTrigger = { join_condition?: 'or' | 'and' } & Record<string, AttributeTest | 'or' | 'and' | undefined>;

export interface Triggers {
  always?: Record<string, never>;
  never?: Record<string, never>;
  groups?: GroupsTrigger;
  attributes?: AttributesTrigger;
}

export interface MapRule {
  name: string;
  enabled: boolean;
  /** Absent: every external method. */
  sources?: string[];
  map_type: MapType;
  organization?: string;
  team?: string;
  /** `member`, `admin` or (organizations) `auditor`; only on organization and team rules. */
  role?: 'member' | 'admin' | 'auditor';
  triggers: Triggers;
  revoke: boolean;
}

export const MAX_RULES = 500;
/** A value above this many bytes of JSON is refused (SPEC §21). */
export const MAX_RULES_BYTES = 1024 * 1024;
const MAX_LIST = 1000;

/** Which rule sources exist: the registered methods' (maps/map-sources.ts), so that a new method's rules validate. */
export interface RuleSources {
  accepts(tag: string): boolean;
  /** The sources in words, for the error: `ldap, ldap:default, ldap:1 … ldap:5, …`. */
  describe(): string;
}

const sourceOf = (known: RuleSources) =>
  z.string().max(200).refine((value) => known.accepts(value), {
    error: (issue) => `"${String(issue.input).slice(0, 200)}" is not a source: one of ${known.describe()}.`,
  });

const objectName = z.string().min(1, 'This field may not be blank.').max(512);
/** A test's operand: text; a number or boolean is taken as its JSON text, as claims' values are. */
const operand = z.preprocess((value) => (typeof value === 'number' || typeof value === 'boolean' ? JSON.stringify(value) : value), z.string().max(4096));
const groupList = z.array(z.string().min(1, 'This field may not be blank.').max(1024)).min(1).max(MAX_LIST).optional();

const empty = z.strictObject({});

const groups = z.strictObject({ has_or: groupList, has_and: groupList, has_not: groupList }).superRefine((value, ctx) => {
  if (!value.has_or && !value.has_and && !value.has_not) ctx.addIssue({ code: 'custom', message: 'Give at least one of has_or, has_and, has_not.' });
});

const pattern = z.string().superRefine((value, ctx) => {
  const problem = regexProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `Invalid regular expression (RE2 syntax): ${problem}.` });
});

const attributeTest = z
  .strictObject({ equals: operand.optional(), contains: operand.optional(), ends_with: operand.optional(), in: z.array(operand).min(1).max(MAX_LIST).optional(), matches: pattern.optional() })
  .superRefine((value, ctx) => {
    if (Object.keys(value).length > 1) ctx.addIssue({ code: 'custom', message: 'One test per attribute: equals, contains, ends_with, in, matches, or {} (present).' });
  });

const attributes = z
  .object({ join_condition: z.enum(['or', 'and']).optional() })
  .catchall(attributeTest)
  .superRefine((value, ctx) => {
    for (const name of Object.keys(value)) {
      if (name !== 'join_condition' && (name === '' || name.length > 1024)) ctx.addIssue({ code: 'custom', message: 'An attribute name is 1 to 1024 characters.', path: [name] });
    }
    if (!Object.keys(value).some((name) => name !== 'join_condition')) ctx.addIssue({ code: 'custom', message: 'Give at least one attribute and its test.' });
  });

const triggers = z
  .strictObject({ always: empty.optional(), never: empty.optional(), groups: groups.optional(), attributes: attributes.optional() })
  .superRefine((value, ctx) => {
    const given = Object.keys(value);
    const fixed = given.filter((key) => key === 'always' || key === 'never');
    if (!given.length) ctx.addIssue({ code: 'custom', message: 'Give one of always, never, or groups and/or attributes.' });
    else if (fixed.length && given.length > 1) ctx.addIssue({ code: 'custom', message: `${fixed[0]} stands alone: it cannot be given with ${given.filter((key) => key !== fixed[0]).join(', ')}.`, path: [fixed[0]] });
  });

const ROLES: Record<'organization' | 'team', readonly string[]> = { organization: ['member', 'admin', 'auditor'], team: ['member', 'admin'] };

const ruleOf = (known: RuleSources) =>
  z
  .strictObject({
    name: z.string().min(1, 'This field may not be blank.').max(512),
    enabled: z.boolean().default(true),
    sources: z.array(sourceOf(known)).min(1).max(100).optional(),
    map_type: z.enum(MAP_TYPES),
    organization: objectName.optional(),
    team: objectName.optional(),
    role: z.enum(['member', 'admin', 'auditor']).optional(),
    triggers,
    revoke: z.boolean().default(false),
  })
  .superRefine((value, ctx) => {
    const fail = (field: string, message: string) => ctx.addIssue({ code: 'custom', message, path: [field] });
    const target = value.map_type === 'organization' || value.map_type === 'team' ? value.map_type : null;
    const needs = { organization: target !== null, team: target === 'team', role: target !== null };
    for (const field of ['organization', 'team', 'role'] as const) {
      if (value[field] !== undefined && !needs[field]) fail(field, `Not used by a rule of map_type "${value.map_type}".`);
    }
    if (needs.organization && value.organization === undefined) fail('organization', 'This field is required.');
    if (needs.team && value.team === undefined) fail('team', 'This field is required.');
    if (target && value.role !== undefined && !ROLES[target].includes(value.role)) fail('role', `"${value.role}" is not a role of a ${target} rule (${ROLES[target].join(', ')}).`);
    // SPEC §21: an allow rule always decides (DAB: one that does not match admits unless it has revoke).
    if (value.map_type === 'allow' && value.revoke) fail('revoke', 'An allow rule always decides: it refuses when its trigger does not hold, so revoke is not allowed on it.');
  })
  .transform((value): MapRule => {
    const target = value.map_type === 'organization' || value.map_type === 'team';
    return { ...value, ...(target ? { role: value.role ?? 'member' } : {}), triggers: value.triggers as Triggers };
  });

const rulesOf = (known: RuleSources) =>
  z
  .array(ruleOf(known))
  .max(MAX_RULES)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((item, index) => {
      if (seen.has(item.name)) ctx.addIssue({ code: 'custom', message: 'Another rule of the list has this name: names are unique.', path: [index, 'name'] });
      seen.add(item.name);
    });
  });

/** The whole setting: at most MAX_RULES rules and MAX_RULES_BYTES of JSON, then each rule. */
export const authenticationMapsSchema = (known: RuleSources) =>
  reportErrors(
  z
    .unknown()
    .superRefine((value, ctx) => {
      const size = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
      if (size > MAX_RULES_BYTES) ctx.addIssue({ code: 'custom', message: `The rules take ${size} bytes of JSON: at most ${MAX_RULES_BYTES} are allowed.`, abort: true });
    })
    .pipe(rulesOf(known)),
  'path',
);
