#!/usr/bin/env node
import { packageVersion } from '../config/app-config';

/**
 * `automation-manage <command> [flags]` (`npm run manage -- …`): exit 0 on success, `Error: …` and exit 1
 * on failure. The file is named after the bin, so the help and errors say `automation-manage`.
 * `--version` is answered before Nest or any module is loaded (issue 34: within a second); no command at
 * all shows the help on stdout as a success (commander would print it as an error, exit 1).
 */
const VERSION = packageVersion();
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  if (args.length === 0) process.argv.push('--help');
  // Loaded here, not at the top: Nest, TypeORM and every module take most of a second to require.
  void (require('./run-commands') as typeof import('./run-commands')).runCommands(VERSION);
}
