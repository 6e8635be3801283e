import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { databaseOptions } from './database-options';
import { runMigrationsLocked } from './migration-runner';
import { DatabaseHealth } from './database-health';
import { PreparedStatements } from './prepared-statements';
import { Transactions } from './transactions';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ ...databaseOptions(config.databaseUrl), autoLoadEntities: true }),
      // Migrations run before the DataSource is handed to anyone, so no provider sees an old schema.
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options!).initialize();
        await runMigrationsLocked(dataSource);
        return dataSource;
      },
    }),
  ],
  providers: [Transactions, PreparedStatements, DatabaseHealth],
  exports: [Transactions, PreparedStatements, DatabaseHealth],
})
export class DatabaseModule {}
