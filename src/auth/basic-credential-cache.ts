import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SecretBox } from '../common/secret-box';

const MAX_ENTRIES = 10_000;
const TTL_MS = 10 * 60 * 1000;

/**
 * Remembers which (username, password) pairs verified against which stored hash, keyed by an HMAC
 * so no password is held. A hit is honoured only while the user's current stored hash is still that
 * hash: a password change (on any node) changes the hash and the entry stops matching at once.
 */
@Injectable()
export class BasicCredentialCache {
  private readonly entries = new Map<string, { hash: string; expiresAt: number }>();
  private readonly box: SecretBox;
  /** AUTH_FAST_PATH=off (a diagnostic, AppConfig.authFastPath) turns the cache off: every request verifies its password. */
  private readonly enabled: boolean;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.box = new SecretBox(config.secretKey);
    this.enabled = config.authFastPath;
  }

  key(username: string, password: string): string {
    return this.box.mac(`${username}\u0000${password}`);
  }

  matches(key: string, currentHash: string): boolean {
    if (!this.enabled) return false;
    const entry = this.entries.get(key);
    if (!entry) return false;
    if (entry.expiresAt < Date.now() || entry.hash !== currentHash) {
      this.entries.delete(key);
      return false;
    }
    return true;
  }

  remember(key: string, hash: string): void {
    if (!this.enabled) return;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { hash, expiresAt: Date.now() + TTL_MS });
  }
}
