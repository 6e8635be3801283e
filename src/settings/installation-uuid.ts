import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { Setting } from './setting.entity';

/** A row of the settings table that no category shows, so no write or reset of a category reaches it. */
const KEY = '_INSTALLATION_UUID';

/**
 * The installation's UUID (AWX's `INSTALL_UUID`, the `tower_uuid` of forwarded records, SPEC §23): made once by
 * whichever node asks first, the same on every node and after every restart.
 */
@Injectable()
export class InstallationUuid {
  private value?: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<string> {
    if (this.value) return this.value;
    const repo = this.dataSource.getRepository(Setting);
    const read = async () => (await repo.findOne({ where: { key: KEY } }))?.value;
    let stored = await read();
    if (!stored) {
      const now = this.clock.now();
      try {
        await repo.insert({ key: KEY, value: JSON.stringify(randomUUID()), created: now, modified: now });
      } catch {
        // Another node made it first (the key is unique): its value is the one.
      }
      stored = await read();
    }
    this.value = JSON.parse(stored!) as string;
    return this.value;
  }
}
