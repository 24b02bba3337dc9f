import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { describeMemberRepositoryContract } from '../../contracts-tests/member-repository.contract.js';
import { PgMemberRepository } from './pg-member-repository.js';
import { usePgTestStore } from './testing/pg-test-store.js';

describeWithPostgres('PostgreSQL store: team members', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'members');
  const fresh = async () => {
    await open().clear();
    return { members: new PgMemberRepository(open().connection.pool) };
  };
  describeMemberRepositoryContract('postgres', fresh, { numRuns: 15, concurrency: 20 });
});
