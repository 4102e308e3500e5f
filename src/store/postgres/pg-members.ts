import type { Pool } from 'pg';
import { memberSchema, type Member } from '../../contracts/roster.js';
import type { MemberDirectory, StoredMember } from '../../contracts/member-directory.js';
import { inTransaction, storeError } from './transaction.js';

/** The team's roster in PostgreSQL: one row per member, naming the host whose daemon runs it. */
export class PgMembers implements MemberDirectory {
  constructor(
    private readonly pool: Pool,
    private readonly team: string,
  ) {}

  async publish(host: string, members: readonly Member[]): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query('INSERT INTO teamd_teams (team) VALUES ($1) ON CONFLICT DO NOTHING', [this.team]);
      for (const member of members) {
        await client.query(
          `INSERT INTO teamd_members (team, name, host, data) VALUES ($1, $2, $3, $4)
           ON CONFLICT (team, name) DO UPDATE SET host = excluded.host, data = excluded.data`,
          [this.team, member.name, host, JSON.stringify(member)],
        );
      }
      await client.query('DELETE FROM teamd_members WHERE team = $1 AND host = $2 AND NOT (name = ANY($3::text[]))', [
        this.team,
        host,
        members.map((member) => member.name),
      ]);
    });
  }

  async list(): Promise<StoredMember[]> {
    try {
      const result = await this.pool.query<{ host: string | null; data: unknown }>('SELECT host, data FROM teamd_members WHERE team = $1 ORDER BY name', [
        this.team,
      ]);
      return result.rows.flatMap((row) => {
        const parsed = memberSchema.safeParse(row.data);
        return parsed.success ? [{ member: parsed.data, host: row.host }] : [];
      });
    } catch (error) {
      throw storeError(error);
    }
  }
}
