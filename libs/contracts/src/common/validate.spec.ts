import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsDefined, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { MAX_ARRAY_ITEMS, validateInput } from './validate.js';

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

class Tagged {
  @IsDefined() @IsString()
  uid: string;

  @IsOptional() @IsArray() @ArrayMaxSize(3) @ArrayUnique() @IsString({ each: true })
  tags?: string[];
}

class Batch {
  @IsDefined() @IsArray() @ArrayMaxSize(2, { message: 'a batch holds two items at most' }) @ValidateNested({ each: true }) @Type(() => Tagged)
  items: Tagged[];

  @IsOptional() @IsArray() @IsString({ each: true })
  names?: string[];

  /** Only the first is kept, as the users route keeps its first user. */
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Tagged) @Transform(({ value }) => (Array.isArray(value) ? value.slice(0, 1) : value))
  firstOnly?: Tagged[];

  /** A query-style list: empty values dropped, at most three left. */
  @IsOptional() @Transform(({ value }) => (Array.isArray(value) ? value.filter((v) => v !== '') : value)) @IsArray() @ArrayMaxSize(3) @IsString({ each: true })
  nonEmpty?: string[];

  @IsOptional() @IsObject()
  extra?: Record<string, unknown>;
}

describe('validateInput: arrays longer than allowed are refused before their items are validated', () => {
  it("answers an array over its @ArrayMaxSize with the rule's message alone, not one error per item", async () => {
    // 300,000 items: class-validator validated every one (seconds) before its size check failed.
    expect(await validateInput(Batch, { items: Array.from({ length: 300_000 }, () => ({})) })).toEqual({
      ok: false,
      errors: [{ field: 'items', message: 'a batch holds two items at most' }],
    });
  });

  it('finds an over-long array inside a nested DTO, by its path', async () => {
    const tags = Array.from({ length: 5_000 }, (_, i) => `tag-${i}`);
    expect(await validateInput(Batch, { items: [{ uid: 'a' }, { uid: 'b', tags }] })).toEqual({
      ok: false,
      errors: [{ field: 'items[1].tags', message: 'tags must contain no more than 3 elements' }],
    });
  });

  it('bounds a DTO array that declares no size at MAX_ARRAY_ITEMS, and leaves free-form values to the body limit', async () => {
    expect(await validateInput(Batch, { items: [{ uid: 'a' }], names: Array.from({ length: MAX_ARRAY_ITEMS + 1 }, () => 'n') })).toEqual({
      ok: false,
      errors: [{ field: 'names', message: `names must contain no more than ${MAX_ARRAY_ITEMS} elements` }],
    });
    expect(await validateInput(Batch, { items: [{ uid: 'a' }], extra: { list: Array.from({ length: 50_000 }, () => 1) } })).toMatchObject({ ok: true });
  });

  it('holds every item of a nested array to its bounds, also one a transform will drop; a list of values is counted as transformed', async () => {
    // Not strings either: class-validator, checking every item first, would have named that instead.
    const tags = Array.from({ length: 300_000 }, () => 1);
    expect(await validateInput(Batch, { items: [{ uid: 'a' }], firstOnly: [{ uid: 'kept', tags }] })).toEqual({
      ok: false,
      errors: [{ field: 'firstOnly[0].tags', message: 'tags must contain no more than 3 elements' }],
    });
    expect((await validateInput(Batch, { items: [{ uid: 'a' }], firstOnly: [{ uid: 'kept' }, { uid: 'dropped', tags: ['a', 'b', 'c', 'd'] }] })).ok).toBe(false);
    expect(await validateInput(Batch, { items: [{ uid: 'a' }], nonEmpty: ['x', '', '', ''] })).toMatchObject({ ok: true });
  });

  it('takes arrays within their bounds, and says what else is wrong as before', async () => {
    expect(await validateInput(Batch, { items: [{ uid: 'a', tags: ['x', 'y', 'z'] }], extra: { list: [1, 2] } })).toMatchObject({ ok: true });
    expect(await validateInput(Batch, { items: [{ uid: 'a', tags: ['x', 'x'] }] })).toEqual({
      ok: false,
      errors: [{ field: 'items[0].tags', message: "All tags's elements must be unique" }],
    });
  });
});
