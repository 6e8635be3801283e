import { Controller, Delete, Patch, Post, Put, Req, Res, Type } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

const ALLOW = 'GET, HEAD, OPTIONS';

function refuse(req: FastifyRequest, res: FastifyReply): void {
  res.code(405).header('Allow', ALLOW).send({ detail: `Method "${req.method}" not allowed.` });
}

/**
 * SPEC §1's 405 for the writes a read-only route does not take (AWX's read-only views: the records of §23):
 * a controller answering POST, PUT, PATCH and DELETE on `paths` under `prefix` with `Allow: GET, HEAD, OPTIONS`.
 * Registered beside the controller that reads them; the front door's guard runs first (anonymous: 401).
 */
export function readOnlyRoutes(prefix: string, paths: string[]): Type {
  @Controller(prefix)
  class ReadOnlyRoutes {
    @Post(paths)
    post(@Req() req: FastifyRequest, @Res() res: FastifyReply) {
      refuse(req, res);
    }

    @Put(paths)
    put(@Req() req: FastifyRequest, @Res() res: FastifyReply) {
      refuse(req, res);
    }

    @Patch(paths)
    patch(@Req() req: FastifyRequest, @Res() res: FastifyReply) {
      refuse(req, res);
    }

    @Delete(paths)
    delete(@Req() req: FastifyRequest, @Res() res: FastifyReply) {
      refuse(req, res);
    }
  }
  return ReadOnlyRoutes;
}
