import { Injectable, OnModuleInit } from '@nestjs/common';
import { hash, verify, Algorithm } from '@node-rs/argon2';
import { pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { AuthMetrics } from '../common/auth-metrics';

const pbkdf2Async = promisify(pbkdf2);

/** OWASP's argon2id baseline (19 MiB, 2 passes): slow for attackers, ~20 ms for us. */
const ARGON2_OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const UNUSABLE_PASSWORD_PREFIX = '!';

export interface VerifyResult {
  ok: boolean;
  /** A fresh hash to store when the old one used a weaker or older scheme. */
  upgradedHash?: string;
}

/**
 * Password hashing with argon2id; verifies Django `pbkdf2_sha256$` hashes imported from AWX and asks
 * for an upgrade when one matches. Unknown users are checked against a dummy hash so that both
 * answers cost the same time.
 */
@Injectable()
export class PasswordHasher implements OnModuleInit {
  private dummyHash = '';

  constructor(private readonly metrics: AuthMetrics) {}

  async onModuleInit(): Promise<void> {
    this.dummyHash = await hash('dummy password for unknown users', ARGON2_OPTIONS);
  }

  hash(password: string): Promise<string> {
    return hash(password, ARGON2_OPTIONS);
  }

  async verify(password: string, stored: string | undefined): Promise<VerifyResult> {
    this.metrics.passwordVerifications.inc();
    if (!stored || stored.startsWith(UNUSABLE_PASSWORD_PREFIX)) {
      await this.spend(password);
      return { ok: false };
    }
    if (stored.startsWith('pbkdf2_sha256$')) {
      const ok = await verifyDjangoPbkdf2(password, stored);
      return ok ? { ok, upgradedHash: await this.hash(password) } : { ok };
    }
    if (stored.startsWith('$argon2')) {
      try {
        return { ok: await verify(stored, password) };
      } catch {
        return { ok: false };
      }
    }
    await this.spend(password);
    return { ok: false };
  }

  /** Spend the time a real verification takes, for users that do not exist. */
  async burn(password: string): Promise<void> {
    this.metrics.passwordVerifications.inc();
    await this.spend(password);
  }

  private async spend(password: string): Promise<void> {
    try {
      await verify(this.dummyHash || (await this.hash('x')), password);
    } catch {
      /* the answer is irrelevant */
    }
  }
}

async function verifyDjangoPbkdf2(password: string, stored: string): Promise<boolean> {
  const [, iterations, salt, expected] = stored.split('$');
  const rounds = Number(iterations);
  if (!salt || !expected || !Number.isInteger(rounds) || rounds < 1 || rounds > 10_000_000) return false;
  const expectedBytes = Buffer.from(expected, 'base64');
  const derived = await pbkdf2Async(password, salt, rounds, expectedBytes.length || 32, 'sha256');
  return derived.length === expectedBytes.length && timingSafeEqual(derived, expectedBytes);
}
