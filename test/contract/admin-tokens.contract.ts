import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { newAdminTokenRecord } from '../../src/access/admin-tokens.ts';
import { hashKey } from '../../src/access/keys.ts';
import type { AdminTokenStore } from '../../src/store/admin-tokens.ts';

export interface AdminTokenStoreFixture {
  tokens: AdminTokenStore;
  /** The same tokens opened again; absent for a store that lives in the process. */
  reopen?: () => Promise<AdminTokenStore>;
  cleanup(): Promise<void>;
}

// Tokens 2 and 3 share a prefix (the first 12 characters); token 1 has its own.
const TOKEN_1 = `oba_11111111${'a'.repeat(32)}`;
const TOKEN_2 = `oba_22222222${'a'.repeat(32)}`;
const TOKEN_3 = `oba_22222222${'b'.repeat(32)}`;
const REVOKED_AT = '2026-12-06T12:00:00.000Z';

const record = (token: string, createdAt: string) =>
  newAdminTokenRecord(token, { label: `token ${token.slice(4, 5)}`, createdAt: new Date(createdAt) });

export function adminTokenStoreContract(name: string, make: () => Promise<AdminTokenStoreFixture>): void {
  describe(`AdminTokenStore contract: ${name}`, () => {
    async function fresh(t: TestContext): Promise<AdminTokenStoreFixture> {
      const f = await make();
      t.after(() => f.cleanup());
      return f;
    }

    async function withTokens(t: TestContext): Promise<AdminTokenStoreFixture> {
      const f = await fresh(t);
      await f.tokens.insert(record(TOKEN_2, '2026-12-02T00:00:00.000Z'));
      await f.tokens.insert(record(TOKEN_1, '2026-12-03T00:00:00.000Z'));
      await f.tokens.insert(record(TOKEN_3, '2026-12-01T00:00:00.000Z'));
      return f;
    }

    it('an empty store lists nothing and finds nothing', async (t) => {
      const { tokens } = await fresh(t);
      assert.deepEqual(await tokens.list(), []);
      assert.equal(await tokens.findByHash(hashKey(TOKEN_1)), undefined);
    });

    it('keeps every field, never the token itself, and lists oldest first', async (t) => {
      const { tokens } = await withTokens(t);
      const found = await tokens.findByHash(hashKey(TOKEN_1));
      assert.deepEqual(found, {
        token_hash: hashKey(TOKEN_1),
        token_prefix: TOKEN_1.slice(0, 12),
        label: 'token 1',
        created_at: '2026-12-03T00:00:00.000Z',
        revoked_at: null,
      });
      assert.deepEqual(
        (await tokens.list()).map((r) => r.token_hash),
        [TOKEN_3, TOKEN_2, TOKEN_1].map(hashKey),
      );
      assert.ok(!JSON.stringify(await tokens.list()).includes(TOKEN_1));
    });

    it('refuses a second record with the same hash', async (t) => {
      const { tokens } = await withTokens(t);
      await assert.rejects(tokens.insert(record(TOKEN_1, '2026-12-04T00:00:00.000Z')));
      assert.equal((await tokens.list()).length, 3);
    });

    it('revokes by hash once, keeping the first revocation time', async (t) => {
      const { tokens } = await withTokens(t);
      assert.equal(await tokens.revoke({ hash: hashKey(TOKEN_1) }, REVOKED_AT), 1);
      assert.equal(await tokens.revoke({ hash: hashKey(TOKEN_1) }, '2026-12-07T00:00:00.000Z'), 0);
      assert.equal((await tokens.findByHash(hashKey(TOKEN_1)))?.revoked_at, REVOKED_AT);
      assert.equal((await tokens.findByHash(hashKey(TOKEN_2)))?.revoked_at, null);
    });

    it('revokes by prefix every active token that has it', async (t) => {
      const { tokens } = await withTokens(t);
      assert.equal(await tokens.revoke({ prefix: TOKEN_2.slice(0, 12) }, REVOKED_AT), 2);
      assert.equal((await tokens.findByHash(hashKey(TOKEN_3)))?.revoked_at, REVOKED_AT);
      assert.equal((await tokens.findByHash(hashKey(TOKEN_1)))?.revoked_at, null);
      assert.equal(await tokens.revoke({ prefix: 'oba_9' }, REVOKED_AT), 0);
    });

    it('finds the active tokens of a whole stored prefix, oldest first', async (t) => {
      const { tokens } = await withTokens(t);
      const prefix = TOKEN_2.slice(0, 12);
      assert.deepEqual(
        (await tokens.activeByPrefix(prefix)).map((r) => r.token_hash),
        [TOKEN_3, TOKEN_2].map(hashKey),
      );
      await tokens.revoke({ hash: hashKey(TOKEN_3) }, REVOKED_AT);
      assert.deepEqual(await tokens.activeByPrefix(prefix), [record(TOKEN_2, '2026-12-02T00:00:00.000Z')]);
      assert.deepEqual(await tokens.activeByPrefix('oba_2222'), []);
    });

    it('keeps tokens and revocations across a reopen', async (t) => {
      const f = await withTokens(t);
      if (!f.reopen) return t.skip('this store lives in the process: there is nothing to reopen');
      await f.tokens.revoke({ hash: hashKey(TOKEN_2) }, REVOKED_AT);
      const again = await f.reopen();
      assert.equal((await again.list()).length, 3);
      assert.equal((await again.findByHash(hashKey(TOKEN_2)))?.revoked_at, REVOKED_AT);
    });
  });
}
