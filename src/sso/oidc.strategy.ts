import * as client from 'openid-client';
import type * as OidcPassport from 'openid-client/build/passport';

// openid-client is ESM-only; Node 20.19+ loads it through require(esm). Its "./passport" export is
// not visible to TypeScript's node10 resolution, hence the typed require of the runtime path.
const { Strategy } = require('openid-client/passport') as typeof OidcPassport;

/** Where the strategy keeps its transaction on `req.session` (our per-request shim, see SsoController). */
export const OIDC_SESSION_KEY = 'oidc';

/** What openid-client's strategy stores between the redirect and the callback. */
export interface OidcTransaction {
  code_verifier: string;
  nonce?: string;
  state?: string;
  max_age?: number;
}

export type OidcStrategyOptions = ConstructorParameters<typeof Strategy>[0];
export type OidcVerify = ConstructorParameters<typeof Strategy>[1];

/**
 * openid-client's Passport strategy with two changes:
 * - it always sends `state` and `nonce` (upstream sends only PKCE when the provider supports it;
 *   SPEC §7 and ASVS 10.1.2 want all three bound to the browser), and openid-client then checks both;
 * - it starts a new authorization request only on the login route, never because a callback arrived
 *   without `code` (which would turn a broken callback into a fresh redirect).
 */
export class OidcStrategy extends Strategy {
  override authorizationRequestParams<T extends OidcPassport.AuthenticateOptions>(req: Parameters<OidcPassport.Strategy['authorizationRequestParams']>[0], options: T): URLSearchParams {
    const params = new URLSearchParams(super.authorizationRequestParams(req, options) ?? {});
    params.set('state', client.randomState());
    params.set('nonce', client.randomNonce());
    return params;
  }

  override shouldInitiateAuthRequest<T extends OidcPassport.AuthenticateOptions>(_req: unknown, _currentUrl: URL, options: T): boolean {
    return (options as T & { phase?: string }).phase === 'login';
  }
}
