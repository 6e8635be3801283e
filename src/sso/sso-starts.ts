import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Clock } from '../common/clock';
import { clearCookie, setCookie } from '../common/cookies';
import { SecretBox } from '../common/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { PendingStateService } from '../pending-state/pending-state.service';
import { SsoFailure } from './sso-failure';
import type { SsoRequest } from './sso-protocol';

/** How long a started login waits for the provider's answer: its sealed state and its cookie live as long. */
export const SSO_START_SECONDS = 10 * 60;
/** Starts of one protocol a browser holds at once (its tabs); one more ends that browser's oldest, no one else's. */
export const SSO_STARTS_PER_BROWSER = 5;
/** The start cookies are sent to the SSO routes only. */
const COOKIE_PATH = '/sso/';
/** Characters of the keyed digest that names a start's cookie (`sso_oidc_<16>`): 96 bits. */
const NAME_DIGEST_LENGTH = 16;
/** A sealed start is a few hundred characters (a `next` is at most 2048); anything longer is not ours. */
const MAX_SEALED_LENGTH = 4096;

export interface OpenedStart<T> {
  data: T;
  /** Epoch milliseconds after which the start is over. */
  expires: number;
}

interface BrowserBinding<T> {
  id: string;
  start: T;
}

/**
 * What a single sign-on start leaves behind (SPEC §7, issue 56): nothing on the server. Its state (OIDC's state,
 * nonce and PKCE verifier; SAML's request id; the provider and `next`) is sealed with SECRET_KEY, with its expiry,
 * into what the browser carries back: a cookie per start, named by the start's id (so two tabs work), and for SAML
 * the RelayState too. So a start on one node completes on any other, and no number of starts, from one address or
 * many, can end another browser's login. Single use is kept by a replay record written when a completion's answer
 * has been verified (`spend`): only what replay detection needs, for the start's remaining lifetime.
 */
@Injectable()
export class SsoStarts {
  private readonly box: SecretBox;

  constructor(
    private readonly store: PendingStateService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  /** `data` sealed for `purpose` (AES-256-GCM with a key derived from SECRET_KEY), living SSO_START_SECONDS. */
  seal<T>(purpose: string, data: T, expires = this.clock.now().getTime() + SSO_START_SECONDS * 1000): string {
    return this.box.seal(JSON.stringify({ e: expires, d: data }), `sso-start:${purpose}`);
  }

  /** What `seal` sealed for `purpose`, unless it was altered, sealed for another purpose or key, or has expired. */
  open<T>(purpose: string, sealed: unknown): OpenedStart<T> | null {
    if (typeof sealed !== 'string' || !sealed || sealed.length > MAX_SEALED_LENGTH) return null;
    const plain = this.box.open(sealed, `sso-start:${purpose}`);
    if (plain === null) return null;
    const { e, d } = JSON.parse(plain) as { e: number; d: T };
    return typeof e === 'number' && e > this.clock.now().getTime() ? { data: d, expires: e } : null;
  }

  /**
   * Binds the start `id` of protocol `kind` to this browser: an HttpOnly cookie on /sso/ holding `start` sealed.
   * The browser's own oldest starts of that kind beyond SSO_STARTS_PER_BROWSER are ended (their cookies cleared),
   * so what a browser sends stays small. `crossSite`: the answer comes by a cross-site POST (SAML's ACS), which
   * carries the cookie only as SameSite=None, and that only with Secure (an https PUBLIC_URL).
   */
  bind<T>(kind: string, id: string, start: T, req: SsoRequest, res: FastifyReply, crossSite = false): void {
    const live: { name: string; expires: number }[] = [];
    for (const [name, value] of this.heldCookies(kind, req)) {
      const opened = this.open<BrowserBinding<T>>(`${kind}-browser`, value);
      if (opened) live.push({ name, expires: opened.expires });
      else clearCookie(res, name, { path: COOKIE_PATH });
    }
    live.sort((a, b) => a.expires - b.expires);
    for (const old of live.slice(0, Math.max(0, live.length - SSO_STARTS_PER_BROWSER + 1))) clearCookie(res, old.name, { path: COOKIE_PATH });
    const expires = this.clock.now().getTime() + SSO_START_SECONDS * 1000;
    const secure = this.config.sessionCookieSecure;
    setCookie(res, this.cookieName(kind, id), this.seal<BrowserBinding<T>>(`${kind}-browser`, { id, start }, expires), {
      httpOnly: true,
      // OIDC's callback is a top-level GET, which carries Lax cookies; SAML's ACS is a cross-site POST.
      sameSite: crossSite && secure ? 'none' : 'lax',
      secure,
      path: COOKIE_PATH,
      maxAge: SSO_START_SECONDS,
    });
  }

  /** The start `id` as this browser's cookie holds it, or null (another browser's start, or none). */
  held<T>(kind: string, id: string, req: SsoRequest): OpenedStart<T> | null {
    const opened = this.open<BrowserBinding<T>>(`${kind}-browser`, req.cookies?.[this.cookieName(kind, id)]);
    return opened && opened.data.id === id ? { data: opened.data.start, expires: opened.expires } : null;
  }

  /** Whether this browser sent any live start cookie of `kind`: a browser that carries them must carry this start's. */
  holdsAny(kind: string, req: SsoRequest): boolean {
    return [...this.heldCookies(kind, req)].some(([, value]) => this.open(`${kind}-browser`, value) !== null);
  }

  /** The start's cookie is cleared when its completion is tried: a start is completed at most once. */
  unbind(kind: string, id: string, res: FastifyReply): void {
    clearCookie(res, this.cookieName(kind, id), { path: COOKIE_PATH });
  }

  /** Whether a completion of the start `id` was already accepted (anywhere: the record is in the shared store). */
  async used(kind: string, id: string): Promise<boolean> {
    return !!(await this.store.peek(this.usedKey(kind, id)));
  }

  /**
   * Marks the start used, once its answer verified: of two completions of one start (a replay, two nodes at once),
   * only the one whose insert took the key goes on. Kept until the start would have expired anyway.
   */
  async spend(kind: string, id: string, provider: string, expires: number): Promise<void> {
    const ttlSeconds = Math.max(1, Math.ceil((expires - this.clock.now().getTime()) / 1000));
    if (!(await this.store.add(this.usedKey(kind, id), provider, null, ttlSeconds))) throw new SsoFailure('no_transaction', 'this login was already completed');
  }

  private usedKey(kind: string, id: string): string {
    return `ssoused:${kind}:${this.store.digest(`${kind}:${id}`)}`;
  }

  /** A keyed digest of the id names the cookie: the id (OIDC's state) stays out of the browser's cookie names. */
  private cookieName(kind: string, id: string): string {
    return `sso_${kind}_${this.box.mac(`sso-start:${kind}:${id}`).slice(0, NAME_DIGEST_LENGTH)}`;
  }

  private *heldCookies(kind: string, req: SsoRequest): Iterable<[string, string]> {
    const prefix = `sso_${kind}_`;
    for (const [name, value] of Object.entries(req.cookies ?? {})) {
      if (name.length === prefix.length + NAME_DIGEST_LENGTH && name.startsWith(prefix) && typeof value === 'string') yield [name, value];
    }
  }
}
