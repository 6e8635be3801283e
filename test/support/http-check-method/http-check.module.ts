import { Module } from '@nestjs/common';
import { z } from 'zod';
import { ExternalLoginsModule } from '../../../src/external-logins/external-logins.module';
import { ExternalMethods } from '../../../src/external-logins/external-methods';
import { SettingsModule } from '../../../src/settings/settings.module';
import { SettingsService } from '../../../src/settings/settings.service';
import { checkPassword, HTTP_CHECK } from './http-check';

const CATEGORY = 'http_check';
const LABEL = 'Corporate login check';

/**
 * A password method a team adds without changing the service (issue 55, docs/architecture.md "A new login
 * method"): one folder, this one registration, and the one import of its module. The external-login pipeline
 * does everything after the proof; AUTHENTICATION_MAPS rules name it as `httpcheck`.
 */
@Module({ imports: [SettingsModule, ExternalLoginsModule] })
export class HttpCheckModule {
  constructor(methods: ExternalMethods, settings: SettingsService) {
    const url = () => settings.get<string>('HTTP_CHECK_URL');
    methods.register({
      method: {
        account: HTTP_CHECK,
        label: LABEL,
        provesPassword: true,
        person: true,
        remote: true,
        configured: () => url() !== '',
        managedFields: () => ['username', 'password', 'email'],
        repeatTtlMs: () => 0,
      },
      order: 40,
      settings: [{ category: CATEGORY, label: LABEL, definitions: [{ key: 'HTTP_CHECK_URL', category: CATEGORY, default: '', schema: z.union([z.literal(''), z.url({ protocol: /^https?$/ })]) }] }],
      prove: (attempt, { note }) => checkPassword(url(), attempt, note),
      explainer: {
        category: CATEGORY,
        unproven: { status: null, groups: [] },
        lines: (answer) => [`Status: ${String(answer.status ?? '(none)')}`, `Groups: ${(answer.groups as string[]).join(', ') || '(none)'}`],
      },
    });
  }
}
