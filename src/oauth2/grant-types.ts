import { AuthorizationCode, Client, InvalidGrantError, InvalidScopeError, RefreshToken, Request } from '@node-oauth/oauth2-server';
import AuthorizationCodeGrantType from '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type';
import RefreshTokenGrantType from '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type';
import { parseScope } from '../tokens/scopes';

/**
 * The library's grants, adjusted through its `extendedGrantTypes` hook where RFC 6749 or our
 * scope model asks for something else. Everything not overridden is the library's.
 */

/** RFC 6749 §5.2 calls a `redirect_uri` that differs from the authorization request's `invalid_grant`. */
export class ExactRedirectCodeGrant extends AuthorizationCodeGrantType {
  validateRedirectUri(request: Request, code: AuthorizationCode): void {
    if (!code.redirectUri) return;
    if (request.body.redirect_uri !== code.redirectUri) {
      throw new InvalidGrantError('Invalid grant: `redirect_uri` does not match the authorization request');
    }
  }
}

/**
 * Two changes to the refresh grant: `write` implies `read`, so narrowing a write grant to read is
 * allowed (the library compares words literally); and the scope is checked before the token is
 * rotated, so a malformed request does not cost the client its grant.
 */
export class NarrowingRefreshGrant extends RefreshTokenGrantType {
  async handle(request: Request, client: Client) {
    const token = await this.getRefreshToken(request, client);
    const scope = this.getScope(request, token);
    await this.revokeToken(token);
    return this.saveToken(token.user, client, scope);
  }

  getScope(request: Request, token: RefreshToken): string[] {
    const original: string[] = token.scope ?? [];
    if (request.body.scope === undefined) return original;
    const requested = parseScope(request.body.scope)?.split(' ');
    const granted = original.includes('write') ? ['read', 'write'] : original;
    if (!requested || !requested.every((s) => granted.includes(s))) throw new InvalidScopeError('Invalid scope: Unable to add extra scopes');
    return requested;
  }
}
