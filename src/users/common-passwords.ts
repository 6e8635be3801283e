import { Injectable } from '@nestjs/common';
import { dictionary } from '@zxcvbn-ts/language-common';

/** The one reading of a password for the deny-list (SPEC §22): `Ｐａｓｓｗｏｒｄ` and `PASSWORD` are `password`. */
export function commonForm(password: string): string {
  return password.normalize('NFKC').toLowerCase();
}

/**
 * The deny-list of SPEC §22: zxcvbn's `passwords` dictionary (the package's public entry names it
 * `passwords-common`), a pinned dependency read once when the app starts, never from the network.
 */
@Injectable()
export class CommonPasswords {
  private readonly entries: ReadonlySet<string> = new Set(dictionary['passwords-common'].map(commonForm));

  get size(): number {
    return this.entries.size;
  }

  has(password: string): boolean {
    return this.entries.has(commonForm(password));
  }
}
