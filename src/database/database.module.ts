import { Global, Module, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { databaseOptions } from './database-options';
import { runMigrationsLocked } from './migration-runner';
import { ensureCausalReads } from './galera-causal-reads';
import { connectDatabase } from './database-connect';
import { DatabaseHealth } from './database-health';
import { closeOffThreadReads } from './off-thread-reads';
import { startStep } from './start-progress';
import { PreparedStatements } from './prepared-statements';
import { Transactions } from './transactions';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      // Retries are connectDatabase's (one short line each, permanent errors at once), not the module's.
      useFactory: (config: AppConfig) => ({ ...databaseOptions(config.databaseUrl), autoLoadEntities: true, toRetry: () => false }),
      // Migrations run before the DataSource is handed to anyone, so no provider sees an old schema.
      dataSourceFactory: async (options) => {
        startStep('the database connection');
        const dataSource = await connectDatabase(options!);
        // Before any other statement of the service: on Galera every connection reads causally.
        startStep('causal reads on every connection (Galera)');
        await ensureCausalReads(dataSource);
        startStep('the migrations');
        await runMigrationsLocked(dataSource);
        startStep('loading the application');
        return dataSource;
      },
    }),
  ],
  providers: [Transactions, PreparedStatements, DatabaseHealth],
  exports: [Transactions, PreparedStatements, DatabaseHealth],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    await closeOffThreadReads(this.dataSource);
  }
}
