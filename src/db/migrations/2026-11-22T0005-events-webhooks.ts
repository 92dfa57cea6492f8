import { PostgresAdapter, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';
  const json = postgres ? 'jsonb' : 'text';

  // The event log: one row per create, update and delete of a record and per notification, written in the
  // transaction of the change; clients catch up through GET /events, webhooks are delivered from it.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text')
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    // Ids and statuses of the object only: never personal data.
    .addColumn('data', json, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  // Retention deletes each provider's oldest events through events_page: no index of its own to keep up.
  // On PostgreSQL each filter (object, type, employer) has its own index. On SQLite every index an
  // event-writing transaction touches is pages written at its COMMIT (the object index alone, whose keys land
  // anywhere, cost the enrollment flow ~15% more CPU): there events_page covers the filtered columns instead,
  // and a filter reads its entries newest first until a page is full.
  if (postgres) {
    await db.schema.createIndex('events_page').on('events').columns(['provider_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('events_object').on('events').columns(['provider_id', 'object_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('events_type').on('events').columns(['provider_id', 'event_type', 'created_at', 'id']).execute();
    await db.schema.createIndex('events_employer').on('events').columns(['provider_id', 'employer_id', 'created_at', 'id']).execute();
  } else {
    await db.schema
      .createIndex('events_page')
      .on('events')
      .columns(['provider_id', 'created_at', 'id', 'employer_id', 'object_type', 'event_type', 'object_id'])
      .execute();
  }

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // JSON array of event types, or ["*"].
    .addColumn('enabled_events', json, (c) => c.notNull())
    // The signing secret must be read back to sign, so it is encrypted (not hashed) at rest.
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    // After a rotation the old secret also signs for 24 hours.
    .addColumn('previous_secret_ciphertext', 'text')
    .addColumn('previous_secret_expires_at', timestamp)
    .addColumn('disabled', 'boolean', (c) => c.notNull())
    // 'failing' when the service disabled it (3 days of failures), null when a client did, or it is enabled.
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', timestamp)
    // Since when every attempt has failed (null after any success).
    .addColumn('failing_since', timestamp)
    .addColumn('metadata', json, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_page').on('webhook_endpoints').columns(['provider_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    // No foreign key: events are pruned after their retention, deliveries go with their endpoint.
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // Deliveries about one object go out in order: the object is kept here to find the ones before.
    .addColumn('object_id', 'text', (c) => c.notNull())
    // The exact body sent (the event as JSON), so every attempt and a later retry send the same bytes.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', timestamp)
    .addColumn('last_attempt_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('completed_at', timestamp)
    .execute();
  await db.schema.createIndex('webhook_deliveries_page').on('webhook_deliveries').columns(['endpoint_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('webhook_deliveries_order')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'object_id', 'status', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('succeeded', 'boolean', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
  await db.schema.dropTable('events').execute();
}
