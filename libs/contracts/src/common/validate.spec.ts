import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsDefined, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { validateInput } from './validate.js';

class Person {
  @IsDefined() @IsString() @Matches(/^\S+$/, { message: 'uid must have no spaces' })
  uid: string;

  @IsOptional() @IsString() @MaxLength(5)
  name?: string;
}

class People {
  @IsArray() @ValidateNested({ each: true }) @Type(() => Person)
  people: Person[];
}

describe('validateInput: one field, one message', () => {
  it('says a missing field is missing, and nothing else about it', async () => {
    expect(await validateInput(People, { people: [{}] })).toEqual({ ok: false, errors: [{ field: 'people[0].uid', message: 'uid should not be null or undefined' }] });
  });

  it('names the wrong type before any rule about the value', async () => {
    expect(await validateInput(People, { people: [{ uid: 5, name: 7 }] })).toEqual({
      ok: false,
      errors: [
        { field: 'people[0].uid', message: 'uid must be a string' },
        { field: 'people[0].name', message: 'name must be a string' },
      ],
    });
  });

  it('gives the value rule once the type is right, and unknown fields their own message', async () => {
    expect(await validateInput(People, { people: [{ uid: 'a b', name: 'too long', extra: 1 }] })).toEqual({
      ok: false,
      errors: expect.arrayContaining([
        { field: 'people[0].uid', message: 'uid must have no spaces' },
        { field: 'people[0].name', message: 'name must be shorter than or equal to 5 characters' },
        { field: 'people[0].extra', message: 'unknown field people[0].extra' },
      ]),
    });
    const result = await validateInput(People, { people: [{ uid: 'a b', name: 'too long', extra: 1 }] });
    expect(result.ok ? 0 : result.errors.length).toBe(3);
  });
});

describe('validateInput: unknown fields', () => {
  it('refuses them by default, at any depth', async () => {
    expect(await validateInput(People, { people: [{ uid: 'a', extra: 1 }], more: 2 })).toEqual({
      ok: false,
      errors: expect.arrayContaining([
        { field: 'more', message: 'unknown field more' },
        { field: 'people[0].extra', message: 'unknown field people[0].extra' },
      ]),
    });
  });

  it("drops them at any depth when asked, and still refuses a known field's bad value", async () => {
    const dropped = await validateInput<People>(People, { people: [{ uid: 'a', extra: 1 }], more: 2 }, '', 'drop');
    expect(dropped.ok).toBe(true);
    expect(dropped.ok && JSON.parse(JSON.stringify(dropped.value))).toEqual({ people: [{ uid: 'a' }] });
    expect(await validateInput(People, { people: [{ uid: 'a b', extra: 1 }] }, '', 'drop')).toEqual({
      ok: false,
      errors: [{ field: 'people[0].uid', message: 'uid must have no spaces' }],
    });
  });
});
