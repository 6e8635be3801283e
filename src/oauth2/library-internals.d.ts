/** The library's built-in authorization-code grant, subclassed through its `extendedGrantTypes` hook. */
declare module '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type' {
  import { AbstractGrantType, AuthorizationCode, Request } from '@node-oauth/oauth2-server';
  class AuthorizationCodeGrantType extends AbstractGrantType {
    handle(request: Request, client: import('@node-oauth/oauth2-server').Client): Promise<import('@node-oauth/oauth2-server').Token>;
    validateRedirectUri(request: Request, code: AuthorizationCode): void;
  }
  export = AuthorizationCodeGrantType;
}

/** The library's built-in refresh-token grant, subclassed through the same hook. */
declare module '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type' {
  import { AbstractGrantType, Client, RefreshToken, Request, Token } from '@node-oauth/oauth2-server';
  class RefreshTokenGrantType extends AbstractGrantType {
    handle(request: Request, client: Client): Promise<Token>;
    getRefreshToken(request: Request, client: Client): Promise<RefreshToken>;
    revokeToken(token: RefreshToken): Promise<RefreshToken>;
    saveToken(user: unknown, client: Client, scope: string[] | undefined): Promise<Token>;
    getScope(request: Request, token?: RefreshToken): string[];
  }
  export = RefreshTokenGrantType;
}
