import * as jose from 'jose';
import { LogoutRefused } from '../sso-failure';

/** The `events` member that makes a JWT a logout token (OpenID Connect Back-Channel Logout 1.0 §2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** How old a logout token may be (`iat`): providers send it at once, so minutes are plenty. */
export const LOGOUT_TOKEN_MAX_AGE_SECONDS = 300;

export interface LogoutTokenContext {
  issuer: string;
  clientId: string;
  keys: jose.JWTVerifyGetKey;
  /** The signature algorithms the provider lists for ID tokens (never "none", never a shared-secret one). */
  algorithms: string[];
  now: Date;
  clockToleranceSeconds: number;
}

export interface LogoutTokenClaims {
  jti: string;
  sid?: string;
  sub?: string;
  /** Until when the token could be presented again: the replay cache keeps its `jti` that long. */
  usableUntil: number;
}

/**
 * Back-Channel Logout 1.0 §2.6: the logout token is a JWT signed by one of the provider's keys with an
 * algorithm the provider uses for ID tokens, from its issuer, for our client, issued recently (`iat`,
 * and `exp` when present), with a `jti`, the back-channel `events` member, `sid` or `sub`, and no `nonce`
 * (so an ID token cannot be passed off as one). The `jti` replay check is the caller's.
 */
export async function verifyLogoutToken(token: string, ctx: LogoutTokenContext): Promise<LogoutTokenClaims> {
  let payload: jose.JWTPayload;
  try {
    ({ payload } = await jose.jwtVerify(token, ctx.keys, {
      issuer: ctx.issuer,
      audience: ctx.clientId,
      algorithms: ctx.algorithms,
      currentDate: ctx.now,
      clockTolerance: ctx.clockToleranceSeconds,
      maxTokenAge: LOGOUT_TOKEN_MAX_AGE_SECONDS,
      requiredClaims: ['iat', 'jti'],
    }));
  } catch (err) {
    const e = err as { code?: string; claim?: string; message?: string };
    throw new LogoutRefused(`logout token refused: ${[e.code, e.claim && `claim "${e.claim}"`, e.message].filter(Boolean).join(' ').slice(0, 300)}`);
  }
  const events = payload.events as Record<string, unknown> | undefined;
  const event = events && typeof events === 'object' && Object.hasOwn(events, BACKCHANNEL_LOGOUT_EVENT) ? events[BACKCHANNEL_LOGOUT_EVENT] : undefined;
  if (!event || typeof event !== 'object' || Array.isArray(event)) throw new LogoutRefused('logout token refused: no back-channel logout event');
  if (Object.hasOwn(payload, 'nonce')) throw new LogoutRefused('logout token refused: it carries a nonce');
  const sid = nonEmpty(payload.sid);
  const sub = nonEmpty(payload.sub);
  if (!sid && !sub) throw new LogoutRefused('logout token refused: neither sid nor sub');
  const jti = nonEmpty(payload.jti);
  if (!jti) throw new LogoutRefused('logout token refused: no jti');
  const lastUse = Math.max((payload.iat ?? 0) + LOGOUT_TOKEN_MAX_AGE_SECONDS, payload.exp ?? 0) + ctx.clockToleranceSeconds;
  return { jti, sid, sub, usableUntil: lastUse * 1000 };
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

/** Asymmetric JWS algorithms a provider lists for its ID tokens; RS256 when it lists none (OpenID Connect Discovery's default). */
export function logoutTokenAlgorithms(listed: readonly string[] | undefined): string[] {
  const usable = (listed ?? ['RS256']).filter((alg) => alg !== 'none' && !alg.startsWith('HS'));
  return usable.length ? usable : ['RS256'];
}
