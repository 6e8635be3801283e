import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { Public } from '../common/public.decorator';
import { IntrospectionEndpoint } from './introspection-endpoint.service';
import { noStore, sendOAuthError } from './oauth2-response';
import { RevocationEndpoint } from './revocation-endpoint.service';
import { TokenEndpoint } from './token-endpoint.service';

/**
 * `/api/o/` and the client endpoints (token, revocation, introspection). They are public to the global guard: a basic header here
 * is the OAuth client's authentication, checked by the endpoint itself (SPEC §1).
 */
@Controller('api/o')
export class OAuth2Controller {
  constructor(
    private readonly tokenEndpoint: TokenEndpoint,
    private readonly revocationEndpoint: RevocationEndpoint,
    private readonly introspectionEndpoint: IntrospectionEndpoint,
  ) {}

  @Public()
  @Get()
  index() {
    return {
      authorize: '/api/o/authorize/',
      token: '/api/o/token/',
      revoke_token: '/api/o/revoke_token/',
      introspect: '/api/o/introspect/',
      device_authorization: '/api/o/device_authorization/',
      device: '/api/o/device/',
    };
  }

  @Public()
  @Post('token')
  async token(@Req() req: Request, @Res() res: Response) {
    try {
      const { body } = await this.tokenEndpoint.handle(req);
      noStore(res);
      res.code(200).send(body);
    } catch (err) {
      sendOAuthError(res, err);
    }
  }

  /** RFC 7009 §2.2: 200 with an empty body, whether or not there was anything to revoke. */
  @Public()
  @Post('revoke_token')
  async revoke(@Req() req: Request, @Res() res: Response) {
    try {
      await this.revocationEndpoint.handle(req);
      noStore(res);
      res.code(200).send();
    } catch (err) {
      sendOAuthError(res, err);
    }
  }

  /** RFC 7662 §2.2: 200 with `{"active": …}`; a caller that may not ask gets 401 `invalid_client` or 403. */
  @Public()
  @Post('introspect')
  async introspect(@Req() req: Request, @Res() res: Response) {
    try {
      const answer = await this.introspectionEndpoint.handle(req, res);
      noStore(res);
      res.code(200).send(answer);
    } catch (err) {
      sendOAuthError(res, err);
    }
  }
}
