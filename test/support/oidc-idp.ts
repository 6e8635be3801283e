import { createSign, generateKeyPairSync, KeyObject, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from './sso-browser';

// oidc-provider 9 is ESM-only with a default export; Node 20.19+ loads it through require(esm).
const Provider = require('oidc-provider').default as new (issuer: string, config: Record<string, unknown>) => OidcProviderInstance;

interface KoaContext {
  path: string;
  method: string;
  status: number;
  body: unknown;
}
interface OidcProviderInstance {
  callback(): (req: http.IncomingMessage, res: http.ServerResponse) => void;
  use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  on(event: string, listener: (...args: unknown[]) => void): void;
}

export interface OidcAccount {
  preferred_username?: string;
  email?: string;
  given_name?: string;
  family_name?: string;
  /** The groups claim (SPEC §21's `groups_claim`, default "groups"), released with the profile scope. */
  groups?: string[] | string;
  department?: string;
}

export type IdTokenTamper = (claims: Record<string, unknown>, header: Record<string, unknown>) => { claims?: Record<string, unknown>; key?: KeyObject | 'none'; header?: Record<string, unknown> };

/** What the provider's back-channel logout delivery reported: the relying party's answer was 200 (ok) or not. */
export interface BackchannelDelivery {
  ok: boolean;
  sid?: string;
  error?: string;
}

/** The `events` member of a logout token (OpenID Connect Back-Channel Logout 1.0). */
export const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export const CLIENT_ID = 'automation-service';
export const CLIENT_SECRET = 'client-secret-for-tests-0123456789abcdef';

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * A real OpenID provider (node-oidc-provider, certified) on 127.0.0.1:<random port> with generated
 * RS256 keys, one confidential client, fixture accounts, and its development login/consent pages.
 * `tamperIdToken` rewrites the next ID token at the token endpoint (re-signed with the provider's real
 * key unless told otherwise) so each ID-token check of the relying party can be shown to refuse.
 * `/mirror/.well-known/openid-configuration` serves the real discovery document under another URL,
 * i.e. metadata whose `issuer` differs from the URL it was fetched for (mix-up).
 */
export class OidcIdp {
  tamperIdToken?: IdTokenTamper;
  /** The claims of the last ID token the token endpoint issued (as sent, after any tampering). */
  lastIdToken?: Record<string, unknown>;
  /** Every back-channel logout the provider delivered (its `backchannel.success` / `backchannel.error` events). */
  readonly backchannel: BackchannelDelivery[] = [];
  private readonly signingKey: KeyObject;

  private constructor(
    readonly issuer: string,
    private readonly server: http.Server,
    signingKey: KeyObject,
  ) {
    this.signingKey = signingKey;
  }

  /**
   * `postLogoutRedirectUri` and `backchannelLogoutUri` register the client for RP-initiated and back-channel
   * logout (SPEC §17); with a back-channel URI the provider puts `sid` in its ID tokens.
   */
  static async start(opts: {
    redirectUri: string;
    accounts: Record<string, OidcAccount>;
    postLogoutRedirectUri?: string;
    backchannelLogoutUri?: string;
  }): Promise<OidcIdp> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' };
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [opts.redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          ...(opts.postLogoutRedirectUri ? { post_logout_redirect_uris: [opts.postLogoutRedirectUri] } : {}),
          ...(opts.backchannelLogoutUri ? { backchannel_logout_uri: opts.backchannelLogoutUri, backchannel_logout_session_required: true } : {}),
        },
      ],
      jwks: { keys: [jwk] },
      cookies: { keys: ['oidc-idp-test-cookie-key'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'given_name', 'family_name', 'groups', 'department'] },
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true }, backchannelLogout: { enabled: true } },
      // The provider refuses outgoing requests to special-use addresses (its SSRF guard, a dispatcher it adds);
      // this test peer posts its back-channel logouts to the service on 127.0.0.1, so it does without.
      fetch: (url: string, options: RequestInit & { dispatcher?: unknown }) => fetch(url, { ...options, dispatcher: undefined } as RequestInit),
      findAccount: async (_ctx: unknown, sub: string) =>
        Object.hasOwn(opts.accounts, sub) ? { accountId: sub, claims: async () => ({ sub, ...opts.accounts[sub] }) } : undefined,
    });
    provider.on('server_error', (_ctx, err) => process.stderr.write(`oidc-provider server_error: ${String(err)}\n`));
    const idp = new OidcIdp(issuer, server, privateKey);
    provider.on('backchannel.success', (_ctx, _client, _accountId, sid) => idp.backchannel.push({ ok: true, sid: sid as string }));
    provider.on('backchannel.error', (_ctx, err, _client, _accountId, sid) =>
      idp.backchannel.push({ ok: false, sid: sid as string, error: `${String(err)} ${String((err as { cause?: unknown }).cause ?? '')}` }),
    );
    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as Record<string, unknown> | undefined;
      if (ctx.path === '/token' && ctx.status === 200 && body && typeof body.id_token === 'string') {
        if (idp.tamperIdToken) ctx.body = { ...body, id_token: idp.rewrite(body.id_token) };
        idp.lastIdToken = JSON.parse(Buffer.from(String((ctx.body as Record<string, unknown>).id_token).split('.')[1], 'base64url').toString());
      }
    });
    const handler = provider.callback();
    server.on('request', (req, res) => {
      if (req.url === '/mirror/.well-known/openid-configuration') {
        http.get(`${issuer}/.well-known/openid-configuration`, (upstream) => {
          res.writeHead(upstream.statusCode ?? 500, { 'content-type': 'application/json' });
          upstream.pipe(res);
        });
        return;
      }
      handler(req, res);
    });
    return idp;
  }

  /** Re-encodes an ID token after the tamper function changed its claims, header or key. */
  private rewrite(idToken: string): string {
    const [h, p] = idToken.split('.');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const change = this.tamperIdToken!(claims, header);
    const newHeader = change.header ?? header;
    const input = `${b64url(newHeader)}.${b64url(change.claims ?? claims)}`;
    if (change.key === 'none') return `${input}.`;
    const signature = createSign('sha256').update(input).sign(change.key ?? this.signingKey).toString('base64url');
    return `${input}.${signature}`;
  }

  /**
   * What a person does at the provider: follows the redirects from `startUrl` (the provider's
   * authorization URL), signs in as `account` and consents on the development pages, until the
   * provider sends the browser back to the relying party. Returns that callback URL.
   */
  async authenticate(browser: Browser, startUrl: string, account: string, opts: { abort?: boolean } = {}): Promise<string> {
    let location = startUrl;
    for (let step = 0; step < 12; step++) {
      if (!location.startsWith(this.issuer)) return location;
      const res = await browser.get(location);
      if (res.status >= 300 && res.status < 400) {
        location = new URL(res.headers.location, location).href;
        continue;
      }
      const uid = /\/interaction\/([^/?#]+)/.exec(location)?.[1];
      if (res.status !== 200 || !uid) throw new Error(`unexpected answer from the OpenID provider at ${location}: ${res.status} ${res.text.slice(0, 300)}`);
      if (opts.abort) {
        location = `${this.issuer}/interaction/${uid}/abort`;
        continue;
      }
      const prompt = /name="prompt" value="(login|consent)"/.exec(res.text)?.[1] ?? (res.text.includes('name="login"') ? 'login' : 'consent');
      const form: Record<string, string> = prompt === 'login' ? { prompt, login: account, password: 'any' } : { prompt };
      const submitted = await browser.postForm(`${this.issuer}/interaction/${uid}`, form);
      if (submitted.status < 300 || submitted.status >= 400) throw new Error(`interaction ${prompt} failed: ${submitted.status} ${submitted.text.slice(0, 300)}`);
      location = new URL(submitted.headers.location, location).href;
    }
    throw new Error('too many steps at the OpenID provider');
  }

  /**
   * A logout token as the provider would send it (signed with its key, `kid` and RS256), with `claims`
   * merged over the valid defaults (a claim set to undefined is left out), or changed as `opts` says.
   */
  logoutToken(claims: Record<string, unknown>, opts: { key?: KeyObject | 'none'; header?: Record<string, unknown> } = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const payload = Object.fromEntries(
      Object.entries({ iss: this.issuer, aud: CLIENT_ID, iat: now, exp: now + 120, jti: randomUUID(), events: { [BACKCHANNEL_EVENT]: {} }, ...claims }).filter(([, v]) => v !== undefined),
    );
    const header = opts.header ?? { alg: opts.key === 'none' ? 'none' : 'RS256', typ: 'logout+jwt', kid: 'test-key' };
    const input = `${b64url(header)}.${b64url(payload)}`;
    if (opts.key === 'none') return `${input}.`;
    return `${input}.${createSign('sha256').update(input).sign(opts.key ?? this.signingKey).toString('base64url')}`;
  }

  /**
   * What a person does at the provider's logout page (RP-initiated logout or signing out there directly):
   * follows `startUrl` to the confirmation form and answers "Yes, sign me out". The provider delivers its
   * back-channel logouts before it answers; returns where it sends the browser then.
   */
  async signOut(browser: Browser, startUrl = `${this.issuer}/session/end`): Promise<string> {
    const page = await browser.get(startUrl);
    if (page.status !== 200) throw new Error(`unexpected answer from the logout page: ${page.status} ${page.text.slice(0, 300)}`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)?.[1];
    if (!xsrf) throw new Error(`no logout form: ${page.text.slice(0, 300)}`);
    const confirmed = await browser.postForm(`${this.issuer}/session/end/confirm`, { xsrf, logout: 'yes' });
    if (confirmed.status < 300 || confirmed.status >= 400) throw new Error(`logout confirmation failed: ${confirmed.status} ${confirmed.text.slice(0, 300)}`);
    return new URL(confirmed.headers.location, this.issuer).href;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
