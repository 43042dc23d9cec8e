import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Groups1764100000000 implements MigrationInterface {
  name = 'Groups1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE identity.groups (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        parent_id integer,
        name text NOT NULL,
        type text NOT NULL DEFAULT 'group' CHECK (type IN ('group', 'domain')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT groups_account_id_id UNIQUE (account_id, id),
        CONSTRAINT groups_not_own_parent CHECK (parent_id <> id),
        -- The parent is a group of the same account, and cannot vanish while it has children.
        CONSTRAINT groups_parent FOREIGN KEY (account_id, parent_id) REFERENCES identity.groups (account_id, id)
      )`);
    // Sibling names are unique regardless of case; roots (no parent) are siblings of each other.
    await q.query('CREATE UNIQUE INDEX groups_account_parent_name ON identity.groups (account_id, coalesce(parent_id, 0), lower(name))');
    await q.query('CREATE INDEX groups_account_type ON identity.groups (account_id, type, id)');
    await q.query(`
      CREATE TABLE identity.group_memberships (
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        group_id integer NOT NULL,
        user_id integer NOT NULL REFERENCES identity.users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- One row per (group, user): adding a member twice is ON CONFLICT DO NOTHING.
        PRIMARY KEY (account_id, group_id, user_id),
        CONSTRAINT group_memberships_group FOREIGN KEY (account_id, group_id) REFERENCES identity.groups (account_id, id) ON DELETE CASCADE
      )`);
    await q.query('CREATE INDEX group_memberships_account_user ON identity.group_memberships (account_id, user_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE identity.group_memberships');
    await q.query('DROP TABLE identity.groups');
  }
}
