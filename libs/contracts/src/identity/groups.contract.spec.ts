import 'reflect-metadata';
import { validateInput } from '../common/validate.js';
import { AddGroupLearnersBody, CreateGroupsBody, ListGroupLearnersQuery, parentIdOf, UpdateGroupBody } from './groups.contract.js';

const fieldsOf = async (cls: Parameters<typeof validateInput>[0], plain: unknown) => {
  const result = await validateInput(cls, plain);
  return result.ok ? [] : [...new Set(result.errors.map((e) => e.field))];
};

describe('groups contract', () => {
  it.each([['12'], [12], [''], [null], [undefined]])('accepts parent_id %j', async (parent_id) => {
    expect(await fieldsOf(CreateGroupsBody, { groups: [{ name: 'x', parent_id }] })).toEqual([]);
  });

  it.each([['abc'], ['0'], [0], [-1], ['012'], [1.5], ['2147483648'], [2147483648], [true], [{}]])('refuses parent_id %j', async (parent_id) => {
    expect(await fieldsOf(CreateGroupsBody, { groups: [{ name: 'x', parent_id }] })).toEqual(['groups[0].parent_id']);
  });

  it('reads "" and null as no parent and text as a number', () => {
    expect([parentIdOf(''), parentIdOf(null), parentIdOf(undefined), parentIdOf('12'), parentIdOf(12)]).toEqual([null, null, null, 12, 12]);
  });

  it('lets an update leave attributes out but refuses null names and types', async () => {
    expect(await fieldsOf(UpdateGroupBody, { group: {} })).toEqual([]);
    expect(await fieldsOf(UpdateGroupBody, { group: { name: null, type: null } })).toEqual(expect.arrayContaining(['group.name', 'group.type']));
  });

  it('takes integer user ids only, and sort name or -name only', async () => {
    expect(await fieldsOf(AddGroupLearnersBody, { users: [{ user_id: 3 }] })).toEqual([]);
    expect(await fieldsOf(AddGroupLearnersBody, { users: [{ user_id: '3' }] })).toEqual(['users[0].user_id']);
    expect(await fieldsOf(ListGroupLearnersQuery, { sort: '-name' })).toEqual([]);
    expect(await fieldsOf(ListGroupLearnersQuery, { sort: 'email' })).toEqual(['sort']);
  });
});
