import { Injectable } from '@nestjs/common';

/**
 * The Passport strategies the global guard tries, in AWX's order: bearer (10), session (20),
 * basic (30). Feature modules register theirs at start-up, so `auth` need not import them all
 * and the release without OAuth 2 simply never registers "bearer".
 */
@Injectable()
export class AuthStrategies {
  private readonly entries: { name: string; priority: number }[] = [];
  private cached: string[] = [];

  register(name: string, priority: number): void {
    if (this.entries.some((e) => e.name === name)) return;
    this.entries.push({ name, priority });
    this.cached = [...this.entries].sort((a, b) => a.priority - b.priority).map((e) => e.name);
  }

  names(): string[] {
    return this.cached;
  }
}
