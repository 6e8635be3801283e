import { Injectable } from '@nestjs/common';
import { combineParts } from '../maps/dialects/awx-part';
import { MapSourceReader, MapSources } from '../maps/map-sources';
import { SettingsService } from '../settings/settings.service';
import { LoginMethods } from '../users/login-methods';
import type { ExternalMethod } from './external-method';

/**
 * The registrations of the external methods (issue 55): one call per method, from its own module's
 * constructor (before the settings service first reads the table), fanned out to the registries the rest of
 * the service reads: the login methods (users/), the maps readers (maps/), the settings and their labels.
 */
@Injectable()
export class ExternalMethods {
  private readonly registered = new Map<string, ExternalMethod>();

  constructor(
    private readonly logins: LoginMethods,
    private readonly mapSources: MapSources,
    private readonly settings: SettingsService,
  ) {}

  register(method: ExternalMethod): void {
    this.registered.set(method.method.account, method);
    for (const category of method.settings ?? []) {
      this.settings.register(category.definitions);
      this.settings.nameCategory(category.category, category.label);
      for (const check of category.checks ?? []) this.settings.addCheck(category.category, check);
      for (const derive of category.derivations ?? []) this.settings.addDerivation(category.category, derive);
    }
    // A password method's Passport strategy is named by its account (password-logins.service.ts makes it).
    this.logins.register(method.prove ? { ...method.method, strategy: method.method.account } : method.method, method.order);
    for (const reader of method.mapReaders ?? [noMapsOfItsOwn(method.method.account)]) this.mapSources.register(reader);
  }

  all(): ExternalMethod[] {
    return [...this.registered.values()];
  }

  get(account: string): ExternalMethod | undefined {
    return this.registered.get(account);
  }

  /** The method whose explainer is `/api/v2/settings/<category>/test/`. */
  explainedAt(category: string): ExternalMethod | undefined {
    return [...this.registered.values()].find((m) => m.explainer?.category === category && m.prove);
  }

  /** The methods an explainer command may name (`--method`). */
  explained(): ExternalMethod[] {
    return [...this.registered.values()].filter((m) => m.explainer && m.prove);
  }
}

/** A method that reads no map setting of its own (as TACACS+): AUTHENTICATION_MAPS rules naming its account apply. */
function noMapsOfItsOwn(family: string): MapSourceReader {
  return { family, accepts: (instance) => instance === null, keys: () => [], awxVerdicts: () => combineParts([], true) };
}
