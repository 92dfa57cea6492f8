import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';
  const json = postgres ? 'jsonb' : 'text';

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('employers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('legal_name', 'text', (c) => c.notNull())
    .addColumn('trade_name', 'text')
    .addColumn('federal_ein', 'text')
    .addColumn('email', 'text')
    .addColumn('phone_number', 'text')
    .addColumn('address', json, (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('metadata', json, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('employers_page').on('employers').columns(['provider_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('employer_id', 'text', (c) => c.references('employers.id'))
    .addColumn('name', 'text')
    .addColumn('lookup', 'text', (c) => c.notNull().unique())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('redacted', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('revoked_at', timestamp)
    .execute();
  await db.schema.createIndex('api_keys_page').on('api_keys').columns(['provider_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('api_key_id', 'text', (c) => c.notNull().references('api_keys.id'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['api_key_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_age').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('carriers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('legal_name', 'text', (c) => c.notNull())
    .addColumn('trade_name', 'text')
    .addColumn('logo_url', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('carriers_page').on('carriers').columns(['provider_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('carrier_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('carrier_id', 'text', (c) => c.notNull().references('carriers.id'))
    .addColumn('group_number', 'text', (c) => c.notNull())
    .addColumn('connection_method', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('carrier_groups_page').on('carrier_groups').columns(['provider_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('carrier_groups_employer_page').on('carrier_groups').columns(['provider_id', 'employer_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('business_units')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('legal_name', 'text', (c) => c.notNull())
    .addColumn('trade_name', 'text')
    .addColumn('federal_ein', 'text')
    .addColumn('is_primary', 'boolean', (c) => c.notNull())
    .addColumn('address', json)
    .addColumn('phone_number', 'text')
    .addColumn('email', 'text')
    .addColumn('metadata', json, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('business_units_page').on('business_units').columns(['provider_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('business_units_employer_page').on('business_units').columns(['provider_id', 'employer_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('subclasses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull().references('employers.id'))
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subclasses_page').on('subclasses').columns(['provider_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('subclasses_employer_page').on('subclasses').columns(['provider_id', 'employer_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['subclasses', 'business_units', 'carrier_groups', 'carriers', 'idempotency_keys', 'api_keys', 'employers', 'providers', 'settings']) {
    await db.schema.dropTable(table).execute();
  }
}
