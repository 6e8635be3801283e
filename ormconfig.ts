import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { databaseOptions } from './src/database/database-options';

/** The TypeORM DataSource the migration CLI uses: `npx typeorm migration:run -d dist/ormconfig.js`. */
const url = process.env.DATABASE_URL || 'sqlite:./data/automation.sqlite3';
export default new DataSource(databaseOptions(url));
