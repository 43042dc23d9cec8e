import { Group } from './group.entity.js';
import { containsPattern, learnerName, toGroupView, toLearnerView } from './group.views.js';

const group = (fields: Partial<Group>): Group => Object.assign(new Group(), { id: 7, accountId: 1, parentId: null, name: 'Sales', type: 'group', ...fields });

describe('group views', () => {
  it('shows a root group with parent_id "" and a child with its parent as text', () => {
    expect(toGroupView(group({}), 3)).toEqual({ id: '7', parent_id: '', name: 'Sales', type: 'group', users_count: 3, links: { learners: '/api/author/groups/7/learners' } });
    expect(toGroupView(group({ parentId: 2, type: 'domain' }), 0)).toMatchObject({ parent_id: '2', type: 'domain', users_count: 0 });
  });

  it.each([
    [{ firstName: 'Ada', lastName: 'Lovelace' }, 'Ada Lovelace'],
    [{ firstName: ' Ada ', lastName: null }, 'Ada'],
    [{ firstName: null, lastName: 'Lovelace' }, 'Lovelace'],
    [{ firstName: '', lastName: '  ' }, 'ada-l'],
    [{ firstName: null, lastName: null }, 'ada-l'],
  ])('names %j as %s', (names, expected) => {
    expect(learnerName({ uid: 'ada-l', ...names })).toBe(expected);
  });

  it('shows a learner without figures as 0 and null, and without an avatar_url with a null avatar', () => {
    expect(toLearnerView({ id: 5, uid: 'u', firstName: 'A', lastName: 'B', email: null, avatarUrl: null }, 7)).toEqual({
      id: '5', group: '7', avatar: null, completed_courses_count: 0, email: null, name: 'A B', next_due_date: null,
    });
  });

  it("shows a learner's avatar_url as its avatar", () => {
    expect(toLearnerView({ id: 5, uid: 'u', firstName: 'A', lastName: 'B', email: null, avatarUrl: 'https://cdn.example/a.png' }, 7).avatar).toBe('https://cdn.example/a.png');
  });

  it('escapes LIKE wildcards so they match literally', () => {
    expect(containsPattern('50%_a\\b')).toBe('%50\\%\\_a\\\\b%');
  });
});
