import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// The event feed's order on PostgreSQL: a position given to each event once its transaction has
// committed, by the readers of the feed (events/feed-positions.ts), instead of an organization-wide
// lock that every writer took to number its events in commit order. `event_feeds` holds the last
// position given in each organization, which retention's deletions cannot take back. SQLite numbers
// events in commit order already (its writes are serialized) and keeps paging by `seq`: the column
// and the table stay empty there, and are present so that `copy` moves data between the engines.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('position', 'bigint').execute();
  await db.schema
    .createTable('event_feeds')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('last_position', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_feeds_pkey', ['org_id'])
    .execute();
  if (!isPostgres(db)) return;

  // The events kept so far committed in `seq` order (the lock this replaces saw to it).
  await sql`
    update events set position = ranked.position
    from (select seq, row_number() over (partition by org_id order by seq) as position from events) ranked
    where events.seq = ranked.seq`.execute(db);
  await sql`insert into event_feeds (org_id, last_position) select org_id, max(position) from events group by org_id`.execute(db);
  await db.schema.createIndex('events_position').unique().on('events').columns(['org_id', 'position']).execute();
  // The events still to be placed, found without reading the placed ones.
  await db.schema.createIndex('events_unplaced').on('events').columns(['org_id', 'seq']).where(sql.ref('position'), 'is', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_feeds').execute();
  if (isPostgres(db)) {
    await db.schema.dropIndex('events_unplaced').execute();
    await db.schema.dropIndex('events_position').execute();
  }
  await db.schema.alterTable('events').dropColumn('position').execute();
}
