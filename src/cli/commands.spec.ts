import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CliModule } from './cli.module';
import { COMMANDS } from './commands';

describe('the declared management commands (issue 34)', () => {
  it('each runs on a provider of CliModule, under a name of its own', () => {
    const providers = Reflect.getMetadata('providers', CliModule) as unknown[];
    for (const command of COMMANDS) assert.ok(providers.includes(command.implementation()), `${command.name}: its class is not a provider of CliModule`);
    assert.equal(new Set(COMMANDS.map((c) => c.name)).size, COMMANDS.length);
    assert.equal(new Set(COMMANDS.map((c) => c.implementation())).size, COMMANDS.length, 'one class per command');
  });
});
