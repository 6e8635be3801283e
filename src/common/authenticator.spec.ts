import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import passport from 'passport';
import { Strategy } from 'passport-strategy';
import { actionsOf, authenticateWith } from './authenticator';
import type { Principal } from './principal';

const alice = { user: { id: 1, username: 'alice' }, method: 'basic', scope: 'write' } as unknown as Principal;
const bob = { user: { id: 2, username: 'bob' }, method: 'token', scope: 'read' } as unknown as Principal;

type Verdict = Principal | undefined | Error;

/**
 * A front-door strategy whose verdict is given, following the rule the real ones follow: a principal is
 * success, none is `fail` (no credential: the next strategy decides), an error is the answer.
 */
class Given extends Strategy {
  /** Shared with the per-request copies passport makes (Object.create). */
  readonly seen = { calls: 0 };
  constructor(private readonly verdict: () => Verdict | Promise<Verdict>) {
    super();
  }
  authenticate(): void {
    this.seen.calls++;
    const actions = actionsOf(this);
    const decide = (v: Verdict) => (v instanceof Error ? actions.error(v) : v ? actions.success(v) : actions.fail(401));
    const v = this.verdict();
    if (v instanceof Promise) void v.then(decide);
    else decide(v);
  }
}

let registered = 0;
/** Registers the strategies in passport under fresh names, as PassportStrategy(Lib, name) does. */
function chain(...strategies: Given[]): string[] {
  return strategies.map((s) => {
    const name = `given-${++registered}`;
    passport.use(name, s);
    return name;
  });
}

describe('the front door on passport (authenticateWith)', () => {
  it('is undefined when no strategy finds its credential', async () => {
    assert.equal(await authenticateWith(chain(new Given(() => undefined), new Given(() => undefined)), {}, {}), undefined);
  });

  it('waits for a strategy that decides later, then goes on in order', async () => {
    const basic = new Given(() => alice);
    assert.equal(await authenticateWith(chain(new Given(() => undefined), new Given(async () => undefined), basic), {}, {}), alice);
    assert.equal(basic.seen.calls, 1);
  });

  it('lets the first strategy that finds its credential decide; the later ones never run', async () => {
    const basic = new Given(() => alice);
    assert.equal(await authenticateWith(chain(new Given(async () => bob), basic), {}, {}), bob);
    assert.equal(basic.seen.calls, 0);
  });

  it('rejects with a refusal, made at once or later, and runs no later strategy', async () => {
    const refused = new Error('invalid_token');
    const basic = new Given(() => alice);
    await assert.rejects(authenticateWith(chain(new Given(() => refused), basic), {}, {}), (err) => err === refused);
    await assert.rejects(authenticateWith(chain(new Given(async () => refused), basic), {}, {}), (err) => err === refused);
    assert.equal(basic.seen.calls, 0);
  });

  it('keeps concurrent requests apart: each gets its own verdict from the one registered strategy', async () => {
    const [name] = chain(new Given(async () => undefined));
    const echo = new (class extends Strategy {
      authenticate(req: object): void {
        setImmediate(() => actionsOf(this).success((req as { who: Principal }).who));
      }
    })();
    passport.use(`echo-${registered}`, echo);
    const names = [name, `echo-${registered}`];
    const results = await Promise.all([alice, bob, alice, bob].map((who) => authenticateWith(names, { who }, {})));
    assert.deepEqual(results, [alice, bob, alice, bob]);
  });
});
