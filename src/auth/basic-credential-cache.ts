import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/secret-box';

const MAX_ENTRIES = 10_000;
const TTL_MS = 10 * 60 * 1000;

/**
 * Remembers which (username, password) pairs verified against which stored hash, keyed by an HMAC
 * so no password is held. A hit is honoured only while the user's current stored hash is still that
 * hash: a password change (on any node) changes the hash and the entry stops matching at once.
 * A directory user's "hash" is a constant marker, so such entries live only AUTH_LDAP_CACHE_SECONDS: a
 * password changed in the directory stops working within that time (SPEC §14).
 */
@Injectable()
export class BasicCredentialCache {
  private readonly entries = new Map<string, { hash: string; at: number; expiresAt: number }>();
  private readonly box: SecretBox;
  /** AUTH_FAST_PATH=off (a diagnostic, AppConfig.authFastPath) turns the cache off: every request verifies its password. */
  private readonly enabled: boolean;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.box = new SecretBox(config.secretKey);
    this.enabled = config.authFastPath;
  }

  key(username: string, password: string): string {
    return this.box.mac(`${username}\u0000${password}`);
  }

  /** `maxAgeMs`: the re-check period in force now (a setting changed since the entry was made applies at once). */
  matches(key: string, currentHash: string, maxAgeMs?: number): boolean {
    if (!this.enabled) return false;
    const entry = this.entries.get(key);
    if (!entry) return false;
    const now = this.clock.now().getTime();
    if (entry.expiresAt < now || entry.hash !== currentHash || (maxAgeMs !== undefined && now - entry.at >= maxAgeMs)) {
      this.entries.delete(key);
      return false;
    }
    return true;
  }

  /** `ttlMs`: a password backend's re-check period (AUTH_LDAP_CACHE_SECONDS), else ten minutes. */
  remember(key: string, hash: string, ttlMs = TTL_MS): void {
    if (!this.enabled || ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    const now = this.clock.now().getTime();
    this.entries.set(key, { hash, at: now, expiresAt: now + Math.min(ttlMs, TTL_MS) });
  }
}
