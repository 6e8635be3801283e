import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as PassportLocalStrategy } from 'passport-local';
import { clientIp, userAgentOf } from '../common/client-ip';
import type { CredentialRequest } from '../common/principal';
import { traceOf } from '../common/request-context';
import { PasswordCheck, PasswordProof } from '../users/password-check.service';

/** The form's proof, with what proved the password in §23's words (`local`, `ldap:default`…): its session says so (SPEC §22). */
export interface FormProof extends PasswordProof {
  source: string;
}

/**
 * The login form's password (seed §5.1) on passport-local: `username` and `password` from the form body
 * only. The library also reads them from the query string (`lib/strategy.js`), where a password would end
 * up in logs and history, so it is handed a view of the request without one. Missing fields are its own
 * `fail(400)`, which the form answers as a wrong password. The verdict is the one password check's proof,
 * with the second step still owed (the form asks for it before any session exists).
 */
@Injectable()
export class LocalStrategy extends PassportStrategy(PassportLocalStrategy, 'local') {
  constructor(private readonly passwords: PasswordCheck) {
    super({ passReqToCallback: true });
  }

  authenticate(req: CredentialRequest, options?: object): void {
    super.authenticate(Object.create(req, { query: { value: undefined } }), options);
  }

  async validate(req: CredentialRequest, username: string, password: string): Promise<FormProof> {
    let source = 'local';
    const proof = await this.passwords.prove({ username, password, clientIp: clientIp(req), path: 'session', trace: traceOf(req), userAgent: userAgentOf(req), provenBy: (name) => (source = name) });
    return { ...proof, source };
  }
}
