import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { NotFound } from '../common/errors';
import { Public } from '../common/public.decorator';
import { StaticAssets } from './static-assets';

/**
 * `GET /static/:file`: the stylesheet, icon and page scripts. Names are fixed (no content hash),
 * so browsers keep a copy but revalidate it on each use (`no-cache` + ETag, a cheap 304): a
 * deploy never leaves a page running yesterday's script against today's API.
 */
@Controller('static')
export class StaticAssetsController {
  constructor(private readonly assets: StaticAssets) {}

  @Public()
  @Get(':file')
  serve(@Param('file') file: string, @Req() req: Request, @Res() res: Response): void {
    const asset = this.assets.get(file);
    if (!asset) throw new NotFound();
    res.header('Cache-Control', 'public, no-cache').header('ETag', asset.etag);
    if (ifNoneMatch(req.headers['if-none-match'], asset.etag)) {
      res.code(304).send();
      return;
    }
    res.code(200).type(asset.contentType).send(asset.body);
  }
}

function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
