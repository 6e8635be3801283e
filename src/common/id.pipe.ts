import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFound } from './errors';

/** Ids in paths are positive integers; `1.5`, `1e3`, `abc`, `007` are 404, never another object. */
@Injectable()
export class IdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^[1-9][0-9]{0,9}$/.test(value) || Number(value) > 2147483647) throw new NotFound();
    return Number(value);
  }
}
