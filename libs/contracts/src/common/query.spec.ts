import 'reflect-metadata';
import { IsBoolean, IsOptional } from 'class-validator';
import { booleanOfText, decodeBookmark, encodeBookmark, PageQuery, pageWindow, QueryBool } from './query.js';
import { validateInput } from './validate.js';

describe('page bookmarks', () => {
  it('round-trip the page number and the sort key', () => {
    const text = encodeBookmark({ page: 1001, after: [50_000] });
    expect(text).toMatch(/^bookmark:[A-Za-z0-9_-]+$/);
    expect(decodeBookmark(text)).toEqual({ page: 1001, after: [50_000] });
  });

  it('refuse text that is not a bookmark', () => {
    for (const text of ['bookmark:', 'bookmark:!!', 'page:WzFd', `bookmark:${Buffer.from('{"a":1}').toString('base64url')}`, `bookmark:${Buffer.from('[0,5]').toString('base64url')}`, `bookmark:${Buffer.from('[2]').toString('base64url')}`]) {
      expect(decodeBookmark(text)).toBeUndefined();
    }
  });

  it('are accepted as page, and give the keyset start and the page number', async () => {
    const bookmark = encodeBookmark({ page: 7, after: [300] });
    const result = await validateInput<PageQuery>(PageQuery, { page: bookmark, per_page: '50' });
    expect(result.ok).toBe(true);
    if (result.ok) expect(pageWindow(result.value)).toEqual({ skip: 300, take: 50, page: 7, perPage: 50, after: [300] });
    expect(pageWindow({ page: 3, per_page: 10 })).toEqual({ skip: 20, take: 10, page: 3, perPage: 10 });
  });

  it('leave a bad page a 400', async () => {
    for (const page of ['0', 'bookmark:%%', 'abc', '99999999999999999999']) {
      const result = await validateInput(PageQuery, { page });
      expect(result.ok).toBe(false);
    }
  });
});

describe('QueryBool', () => {
  class Flags {
    @QueryBool() @IsOptional() @IsBoolean()
    only_deleted?: boolean;
  }

  it('knows no names inherited from Object', () => {
    for (const text of ['constructor', '__proto__', 'hasOwnProperty']) expect(booleanOfText(text)).toBeUndefined();
  });

  it("reads Rails' spellings in any case (Python's requests sends True), and refuses other text", async () => {
    for (const text of ['true', 'True', 'TRUE', 't', '1', 'on', 'ON']) expect(await validateInput(Flags, { only_deleted: text })).toEqual({ ok: true, value: expect.objectContaining({ only_deleted: true }) });
    for (const text of ['false', 'False', 'f', '0', 'off', 'F']) expect(await validateInput(Flags, { only_deleted: text })).toEqual({ ok: true, value: expect.objectContaining({ only_deleted: false }) });
    for (const text of ['', 'maybe', '2', 'truthy', 'yes', 'no', 'constructor', '__proto__', 'toString']) expect((await validateInput(Flags, { only_deleted: text })).ok).toBe(false);
  });
});
