import 'reflect-metadata';
import { validateInput } from '../common/validate.js';
import { SlideResponseBody } from './slide-responses.contract.js';
import { CreateSlidesBody, UpdateSlideBody } from './slides.contract.js';

const errorsOf = async (cls: Parameters<typeof validateInput>[0], plain: unknown) => {
  const result = await validateInput(cls, plain);
  return result.ok ? [] : result.errors;
};
const fieldsOf = async (cls: Parameters<typeof validateInput>[0], plain: unknown) => [...new Set((await errorsOf(cls, plain)).map((e) => e.field))];

const choices = (...correct: boolean[]) => correct.map((c, i) => ({ id: String.fromCharCode(97 + i), text: `Choice ${i + 1}`, correct: c }));
const slideWith = (question: unknown, type = 'quiz') => ({ slides: [{ draft_attributes: { title: 'Q', type, allow_comments: null, question } }] });

describe('slide question (the answer model of quiz slides)', () => {
  it('accepts one correct choice, several with multiple, on quiz and question slides, and no question at all', async () => {
    expect(await fieldsOf(CreateSlidesBody, slideWith({ prompt: 'Pick one', choices: choices(false, true) }))).toEqual([]);
    expect(await fieldsOf(CreateSlidesBody, slideWith({ prompt: 'Pick any', choices: choices(true, true, false), multiple: true }, 'question'))).toEqual([]);
    expect(await fieldsOf(CreateSlidesBody, slideWith(null))).toEqual([]);
    expect(await fieldsOf(CreateSlidesBody, { slides: [{ draft_attributes: { type: 'quiz', allow_comments: null } }] })).toEqual([]);
    expect(await fieldsOf(UpdateSlideBody, { slide: { draft_attributes: { type: 'quiz', allow_comments: true, question: { prompt: 'x', choices: choices(true, false) } } } })).toEqual([]);
  });

  it.each([
    ['fewer than 2 choices', { prompt: 'x', choices: choices(true) }, /at least 2/],
    ['no correct choice', { prompt: 'x', choices: choices(false, false) }, /at least one choice must be correct/],
    ['two correct without multiple', { prompt: 'x', choices: choices(true, true) }, /exactly one choice must be correct/],
    ['two correct with multiple false', { prompt: 'x', choices: choices(true, true), multiple: false }, /exactly one choice must be correct/],
    ['repeated ids', { prompt: 'x', choices: [{ id: 'a', text: 'A', correct: true }, { id: 'a', text: 'B', correct: false }] }, /unique ids/],
    ['a blank prompt', { prompt: '  ', choices: choices(true, false) }, /prompt must not be blank/],
    ['no prompt', { choices: choices(true, false) }, /prompt/],
    ['a choice without correct', { prompt: 'x', choices: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B', correct: true }] }, /correct/],
    ['a malformed choice id', { prompt: 'x', choices: [{ id: 'a b', text: 'A', correct: true }, { id: 'b', text: 'B', correct: false }] }, /id must be/],
    ['an unknown field', { prompt: 'x', choices: choices(true, false), shuffle: true }, /shuffle/],
    ['an unknown choice field', { prompt: 'x', choices: [{ id: 'a', text: 'A', correct: true, score: 1 }, { id: 'b', text: 'B', correct: false }] }, /score/],
    ['a string', 'What?', /question/],
  ])('refuses %s', async (_label, question, message) => {
    const errors = await errorsOf(CreateSlidesBody, slideWith(question));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.map((e) => `${e.field}: ${e.message}`).join('\n')).toMatch(message);
    expect(errors.every((e) => e.field.startsWith('slides[0].draft_attributes.question'))).toBe(true);
  });

  it('refuses a question on a slide that is not a quiz slide', async () => {
    const question = { prompt: 'x', choices: choices(true, false) };
    expect(await fieldsOf(CreateSlidesBody, slideWith(question, 'content'))).toEqual(['slides[0].draft_attributes.question']);
    // No type at all is no quiz slide either.
    expect(await fieldsOf(CreateSlidesBody, { slides: [{ draft_attributes: { allow_comments: null, question } }] })).toEqual(['slides[0].draft_attributes.question']);
  });
});

describe('slide URLs (attachment_url, cover backgroundImageUrl)', () => {
  const withUrls = (url: string) => ({
    slides: [{ draft_attributes: { allow_comments: null, attachment_url: url, cover_slide_data: { dark: false, backgroundImageUrl: url, backgroundImageStyle: 'cover', backgroundImageOpacity: 1 } } }],
  });
  const both = ['slides[0].draft_attributes.cover_slide_data.backgroundImageUrl', 'slides[0].draft_attributes.attachment_url'];

  it.each([
    'https://cdn.example.com/a.png',
    'http://example.com/a.png?size=2&dark=1#top',
    'https://intranet/img.png',
    'http://localhost:8080/img.png',
    'https://10.0.0.5/img.png',
    'http://[::1]:3000/img.png',
    'HTTPS://Example.COM/A.png',
    '/api/files/abc.png',
    'files/abc.png',
    '../img/a%20b.png',
    '?v=2',
    '//cdn.example.com/a.png',
    // What the check before took (the scheme without its slashes, which browsers read as http://example.com/).
    'http:example.com/a.png',
  ])('takes %s, an absolute http(s) URL or a relative reference', async (url) => {
    expect(await fieldsOf(CreateSlidesBody, withUrls(url))).toEqual([]);
  });

  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'java\tscript:alert(1)',
    ' javascript:alert(1)',
    '\u0001javascript:alert(1)',
    'data:image/png;base64,AAAA',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'ftp://example.com/a.png',
    'https://',
    '//',
    'https://example.com/a b.png',
    '/a<b>.png',
    '',
    `https://example.com/${'a'.repeat(2048)}`,
  ])('refuses %j', async (url) => {
    expect(await fieldsOf(CreateSlidesBody, withUrls(url))).toEqual(both);
  });
});

describe('slide response body', () => {
  it('takes 1 to 20 distinct choice ids', async () => {
    expect(await fieldsOf(SlideResponseBody, { response: { choice_ids: ['a'] } })).toEqual([]);
    expect(await fieldsOf(SlideResponseBody, { response: { choice_ids: ['a', 'c'] } })).toEqual([]);
    for (const bad of [{ response: { choice_ids: [] } }, { response: { choice_ids: ['a', 'a'] } }, { response: { choice_ids: 'a' } }, { response: { choice_ids: [1] } }, { response: {} }, { choice_ids: ['a'] }, { response: { choice_ids: ['a'], correct: true } }]) {
      expect(await fieldsOf(SlideResponseBody, bad)).not.toEqual([]);
    }
  });
});
