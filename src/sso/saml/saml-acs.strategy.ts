import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { MultiSamlStrategy, MultiStrategyConfig, Profile, VerifyWithRequest } from '@node-saml/passport-saml';
import type { SamlConfig } from '@node-saml/node-saml';
import type { RequestTrace } from '../../common/request-context';
import { SsoFailure } from '../sso-failure';
import type { SsoLogin } from '../sso-protocol';
import { SsoUsers } from '../sso-users.service';
import { SamlLogin, SamlProvider } from './saml-login.service';

const ACS_ATTEMPT = Symbol('samlAcsAttempt');

/**
 * MultiSamlStrategy as the mixin should see it: options, then the sign-on verify it appends. Its declared
 * constructors also take a logout verify, which the mixin's argument types cannot tell from the callback;
 * the ACS needs none (a LogoutRequest at the ACS is refused as an invalid response).
 */
const AcsBase = MultiSamlStrategy as unknown as new (options: MultiStrategyConfig, signonVerify: VerifyWithRequest) => MultiSamlStrategy;

/** What SamlProtocol found before passport runs: the IdP the RelayState names, and the request's trace. */
interface AcsAttempt {
  provider: SamlProvider;
  options: SamlConfig;
  trace: RequestTrace;
  /** Marks the pending login used (SsoStarts.spend): refuses when another completion took it first. */
  spend: () => Promise<void>;
}
type AcsRequest = { [ACS_ATTEMPT]?: AcsAttempt };

/** A fault of ours after node-saml accepted the Response (the database): not the IdP's answer, so not a refusal. */
export class AcsFault extends Error {
  constructor(readonly cause: unknown) {
    super('saml acs fault');
  }
}

/**
 * The SAML assertion consumer on @node-saml/passport-saml (passport-saml's maintained name), Passport
 * strategy `saml`. `MultiSamlStrategy` because the IdP is per request: the sealed RelayState names the pending
 * login and so the IdP, which SamlProtocol opens before passport runs and hands over on the request;
 * getSamlOptions gives that IdP's node-saml options (signature, audience, InResponseTo against the request id
 * the sealed RelayState names, time). validate() then runs the checks node-saml leaves out and the replay
 * cache (SamlLogin.acceptProfile), spends the pending login and provisions the user.
 */
@Injectable()
export class SamlAcsStrategy extends PassportStrategy(AcsBase, 'saml') {
  constructor(
    private readonly saml: SamlLogin,
    private readonly users: SsoUsers,
  ) {
    super({
      passReqToCallback: true,
      getSamlOptions: (req: object, done: (err: Error | null, options?: SamlConfig) => void) => {
        const attempt = (req as AcsRequest)[ACS_ATTEMPT];
        return attempt ? done(null, attempt.options) : done(new SsoFailure('no_transaction', 'unknown RelayState'));
      },
    });
  }

  async validate(req: AcsRequest, profile: Profile | null): Promise<SsoLogin> {
    const { provider, trace, spend } = req[ACS_ATTEMPT]!;
    try {
      const result = await this.saml.acceptProfile(provider, profile);
      await spend();
      const user = await this.users.resolve(result.identity, trace);
      return { user, providerSession: { provider: provider.key, subject: result.subject.nameID, providerSession: result.subject.sessionIndex, saml: result.subject } };
    } catch (err) {
      throw err instanceof SsoFailure ? err : new AcsFault(err);
    }
  }
}

/** Hands the ACS strategy the IdP of this request. */
export function forAcs(req: object, attempt: AcsAttempt): void {
  (req as AcsRequest)[ACS_ATTEMPT] = attempt;
}
