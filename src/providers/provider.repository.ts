/**
 * Provider rows: plain functions taking the database (or a transaction) first.
 */
import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Db, ProviderTable } from '../db/types.js'

export type ProviderRow = Selectable<ProviderTable>

/** Inserts a provider and returns its row. */
export async function insertProvider (db: Db, row: Insertable<ProviderTable>): Promise<ProviderRow> {
  return await db.insertInto('providers').values(row).returningAll().executeTakeFirstOrThrow()
}

/** The provider with `id`, or undefined. */
export async function findProvider (db: Db, id: number): Promise<ProviderRow | undefined> {
  return await db.selectFrom('providers').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Every provider, by id. */
export async function listProviders (db: Db): Promise<ProviderRow[]> {
  return await db.selectFrom('providers').selectAll().orderBy('id').execute()
}

/** Applies `changes` and returns the new row, or undefined when there is no such provider. */
export async function updateProvider (db: Db, id: number, changes: Updateable<ProviderTable>): Promise<ProviderRow | undefined> {
  return await db.updateTable('providers').set(changes).where('id', '=', id).returningAll().executeTakeFirst()
}

/** Deletes a provider (its memberships go with it); returns the deleted row. */
export async function deleteProvider (db: Db, id: number): Promise<ProviderRow | undefined> {
  return await db.deleteFrom('providers').where('id', '=', id).returningAll().executeTakeFirst()
}
