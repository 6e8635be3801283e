import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Strategy } from 'passport-strategy';
import { Authenticator, CredentialStrategy, report, runStrategy } from './authenticator';
import { isPromiseLike } from './awaitable';
import type { Principal } from './principal';

const alice = { user: { id: 1, username: 'alice' }, method: 'basic', scope: 'write' } as unknown as Principal;
const bob = { user: { id: 2, username: 'bob' }, method: 'token', scope: 'read' } as unknown as Principal;

/** A credential strategy whose verdict is given: a value now, or a promise (a database lookup). */
class Given extends Strategy implements CredentialStrategy {
  /** Shared with the per-request copies runStrategy makes (Object.create), as Passport does. */
  readonly seen = { calls: 0 };
  constructor(
    readonly name: string,
    private readonly verdict: () => Principal | undefined | Promise<Principal | undefined>,
  ) {
    super();
  }
  authenticate(): void {
    this.seen.calls++;
    report(this, this.verdict);
  }
}

function front(...strategies: Given[]): Authenticator {
  const authenticator = new Authenticator();
  strategies.forEach((s, i) => authenticator.register(s, (i + 1) * 10));
  return authenticator;
}

describe('Authenticator', () => {
  it('answers without a promise when every strategy decides at once', () => {
    const result = front(new Given('bearer', () => undefined), new Given('basic', () => alice)).authenticate({}, {});
    assert.equal(isPromiseLike(result), false);
    assert.equal(result, alice);
  });

  it('is undefined when no strategy finds its credential', () => {
    assert.equal(front(new Given('bearer', () => undefined), new Given('basic', () => undefined)).authenticate({}, {}), undefined);
  });

  it('waits for a strategy that decides later, then goes on in order', async () => {
    const later = new Given('session', async () => undefined);
    const basic = new Given('basic', () => alice);
    const result = front(new Given('bearer', () => undefined), later, basic).authenticate({}, {});
    assert.equal(isPromiseLike(result), true);
    assert.equal(await result, alice);
    assert.equal(basic.seen.calls, 1);
  });

  it('lets the first strategy that finds its credential decide; the later ones never run', async () => {
    const basic = new Given('basic', () => alice);
    assert.equal(await front(new Given('bearer', async () => bob), basic).authenticate({}, {}), bob);
    assert.equal(basic.seen.calls, 0);
  });

  it('throws a refusal made at once, and rejects with one made later', async () => {
    const refused = new Error('invalid_token');
    const same = (err: unknown) => err === refused;
    assert.throws(() => front(new Given('bearer', () => { throw refused; })).authenticate({}, {}), same);
    await assert.rejects(Promise.resolve(front(new Given('bearer', async () => { throw refused; })).authenticate({}, {})), same);
  });

  it('skips the strategies it is told to', () => {
    const bearer = new Given('bearer', () => bob);
    assert.equal(front(bearer, new Given('session', () => alice)).authenticate({}, {}, { except: ['bearer'] }), alice);
    assert.equal(bearer.seen.calls, 0);
  });
});

describe('runStrategy', () => {
  class Callbacks extends Strategy {
    constructor(private readonly act: (s: Strategy) => void) {
      super();
    }
    authenticate(): void {
      this.act(this);
    }
  }

  it('gives Passport outcomes as they come: at once, later, thrown; only the first one counts', async () => {
    assert.deepEqual(runStrategy(new Callbacks((s) => s.redirect('/x', 302)), {}), { kind: 'redirect', url: '/x', status: 302 });
    assert.deepEqual(runStrategy(new Callbacks((s) => (s.pass(), s.success(alice))), {}), { kind: 'pass' });
    const later = runStrategy(new Callbacks((s) => setImmediate(() => s.fail('Bearer', 401))), {});
    assert.equal(isPromiseLike(later), true);
    assert.deepEqual(await later, { kind: 'fail', challenge: 'Bearer', status: 401 });
    const boom = new Error('boom');
    assert.deepEqual(runStrategy(new Callbacks(() => { throw boom; }), {}), { kind: 'error', error: boom });
  });
});
