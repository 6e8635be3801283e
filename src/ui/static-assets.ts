import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { APP_ICON, APP_STYLESHEET } from './app-stylesheet';

export interface StaticAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** The browser scripts, compiled by the project's tsc from `src/ui/assets/*.ts` next to this file. */
const SCRIPTS = ['session-monitor.js', 'security.js', 'profile.js', 'second-step.js', 'login.js', 'page-kit.js', 'tabs.js', 'admin.js'];

/**
 * @simplewebauthn/browser's own browser bundle (the package's `unpkg` file), served as `webauthn.js`: the
 * pages have no module loader, and the library does the base64url and credential conversions for them.
 */
function webauthnBundle(): string {
  const entry = require.resolve('@simplewebauthn/browser');
  const root = entry.slice(0, entry.lastIndexOf(`${sep}script${sep}`));
  return readFileSync(join(root, 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
}

/**
 * The fixed allow-list of `/static/`: nothing else is ever read from disk for a request, so no
 * name (`../`, encoded slashes, source maps) can reach another file. Everything is loaded once
 * at start-up and served from memory with a strong ETag.
 */
@Injectable()
export class StaticAssets {
  private readonly assets = new Map<string, StaticAsset>();

  constructor() {
    this.add('app.css', 'text/css; charset=utf-8', APP_STYLESHEET);
    this.add('icon.svg', 'image/svg+xml', APP_ICON);
    for (const name of SCRIPTS) {
      const source = readFileSync(join(__dirname, 'assets', name), 'utf8');
      // The source map is not served, so the comment pointing at it would only earn a 404.
      this.add(name, 'text/javascript; charset=utf-8', source.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'));
    }
    this.add('webauthn.js', 'text/javascript; charset=utf-8', webauthnBundle());
  }

  get(name: string): StaticAsset | undefined {
    return this.assets.get(name);
  }

  names(): string[] {
    return [...this.assets.keys()];
  }

  private add(name: string, contentType: string, text: string): void {
    const body = Buffer.from(text, 'utf8');
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    this.assets.set(name, { body, contentType, etag });
  }
}
