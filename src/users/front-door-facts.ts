import type { User } from './user.entity';

/**
 * SQL: a user row (alias `u`) is one the break-glass rule (SPEC §22) can name: an active local superuser without
 * `account_expires` (login-locks.repository.ts BREAK_GLASS_ID, which picks among them).
 */
export const BREAK_GLASS_ELIGIBLE = (u: string) =>
  `${u}.is_superuser = 1 AND ${u}.is_active = 1 AND ${u}.external_account IS NULL AND ${u}.account_expires IS NULL`;

/**
 * SQL columns the front door's user lookups (a session, a bearer token, a basic credential) append for the user
 * resource's SPEC §22 facts, so `/api/v2/me/` asks the database nothing more (bench: each extra statement cost
 * 9-19 % of its rate): how many of the name's lockable pairs have failures counted (none: not locked, whatever
 * the clock), and, for a user the rule can name, the lowest eligible id and the lowest eligible id of its name.
 * Neither reads the clock or a setting, so concurrent lookups still share one statement (LookupBatches).
 */
export const FRONT_DOOR_FACT_COLUMNS = (u: string) =>
  `(SELECT COUNT(*) FROM login_failure lf WHERE lf.username_folded = ${u}.username_folded AND lf.lockable = 1 AND lf.failures > 0), ` +
  `CASE WHEN ${BREAK_GLASS_ELIGIBLE(u)} THEN (SELECT bu.id FROM auth_user bu WHERE ${BREAK_GLASS_ELIGIBLE('bu')} ORDER BY bu.id LIMIT 1) END, ` +
  `CASE WHEN ${BREAK_GLASS_ELIGIBLE(u)} THEN (SELECT bn.id FROM auth_user bn WHERE bn.username_folded = ${u}.username_folded AND ${BREAK_GLASS_ELIGIBLE('bn')} ORDER BY bn.id LIMIT 1) END`;

/** How many values FRONT_DOOR_FACT_COLUMNS selects. */
export const FRONT_DOOR_FACT_WIDTH = 3;

interface FrontDoorFacts {
  countedPairs: number;
  lowestEligible: number | null;
  lowestEligibleOfName: number | null;
  /** The row's fields the facts depend on, as read: a change made to the object since voids them. */
  basis: Basis;
}

type Basis = Pick<User, 'usernameFolded' | 'isSuperuser' | 'isActive' | 'externalAccount'> & { accountExpires: number | undefined };

/** Where a user object keeps its row's facts: a symbol, which TypeORM's saves and the serializer never read. */
const FACTS = Symbol('frontDoorFacts');
type WithFacts = User & { [FACTS]?: FrontDoorFacts };

const basisOf = (u: User): Basis => ({
  usernameFolded: u.usernameFolded,
  isSuperuser: u.isSuperuser,
  isActive: u.isActive,
  externalAccount: u.externalAccount,
  accountExpires: u.accountExpires?.getTime(),
});

const sameBasis = (a: Basis, b: Basis) =>
  a.usernameFolded === b.usernameFolded && a.isSuperuser === b.isSuperuser && a.isActive === b.isActive && a.externalAccount === b.externalAccount && a.accountExpires === b.accountExpires;

const idOrNull = (value: unknown) => (value == null ? null : Number(value));

/** Keeps the facts a front-door row carried (FRONT_DOOR_FACT_COLUMNS at `offset`) with the user it hydrated. */
export function keepFrontDoorFacts(user: User, row: unknown[], offset: number): User {
  (user as WithFacts)[FACTS] = {
    countedPairs: Number(row[offset]),
    lowestEligible: idOrNull(row[offset + 1]),
    lowestEligibleOfName: idOrNull(row[offset + 2]),
    basis: basisOf(user),
  };
  return user;
}

/**
 * The user's SPEC §22 facts from its front-door row, when the row settles them: no lockable pair of the name has
 * a failure counted. Undefined: ask the database (LoginLocksRepository.userFacts).
 */
export function frontDoorFacts(user: User, breakGlassFolded: string): { locked: false; breakGlassId: number | null } | undefined {
  const facts = (user as WithFacts)[FACTS];
  if (!facts || facts.countedPairs !== 0 || !sameBasis(facts.basis, basisOf(user))) return undefined;
  if (!breakGlassFolded) return { locked: false, breakGlassId: facts.lowestEligible };
  return { locked: false, breakGlassId: breakGlassFolded === user.usernameFolded ? facts.lowestEligibleOfName : null };
}
