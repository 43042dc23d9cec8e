import { booleanOfText, MAX_INPUT_DEPTH, type FieldError, type JsonSchema } from '@lms/contracts';

/**
 * Rails-style bracketed parameters (`course_template[description]=New`, `enrollments[0][state]=active`,
 * `roles[]=admin`), as the original service's clients send a body in the query string or a form, turned
 * into the JSON value the route's DTO validates, with typed fields converted as that DTO declares them.
 */

/** What the brackets build before the DTO's types are applied: numeric keys stay keys until the schema says "array". */
export type ParamNode = string | ParamNode[] | ParamObject;
export interface ParamObject {
  [key: string]: ParamNode;
}

/** A parameter the brackets cannot place: answered as a 400 naming the key as sent. */
export class ParamsError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  }
}

/** Names that would reach an object's prototype while building: refused before any assignment (the input checks refuse the other prototype names). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A canonical array index: `0`, `7`, `12` (not `01` or `-1`). */
const INDEX = /^(?:0|[1-9]\d{0,8})$/;

/**
 * `a[b][0][]` -> `['a', 'b', '0', '']` (`''` appends); undefined when the key is not bracket syntax,
 * so it stays one literal name (and the validator reports it as unknown).
 */
export function keySegments(key: string): string[] | undefined {
  const open = key.indexOf('[');
  if (open === -1) return key === '' ? undefined : [key];
  if (open === 0) return undefined;
  const segments = [key.slice(0, open)];
  const rest = /\[([^[\]]*)\]/gy;
  rest.lastIndex = open;
  let match: RegExpExecArray | null;
  while ((match = rest.exec(key)) !== null) {
    segments.push(match[1]);
    if (rest.lastIndex === key.length) return segments;
  }
  return undefined;
}

/** The top-level name of a parameter key: `course_template` for `course_template[description]`. */
export const rootOf = (key: string): string => {
  const open = key.indexOf('[');
  return open > 0 ? key.slice(0, open) : key;
};

const isObject = (node: ParamNode | undefined): node is ParamObject => typeof node === 'object' && node !== null && !Array.isArray(node);

/**
 * A list the brackets build holds values only or objects only (`place` refuses to mix them), so its last
 * item tells which: a check that does not grow with the list, which a form of many thousand `a[]=` pairs
 * would otherwise make quadratic.
 */
const isValueList = (list: ParamNode[]): boolean => list.length === 0 || typeof list[list.length - 1] === 'string';

function hasPath(node: ParamNode, segments: string[]): boolean {
  if (segments.length === 0) return true;
  const [head, ...rest] = segments;
  return isObject(node) && Object.hasOwn(node, head) && hasPath(node[head], rest);
}

function place(target: ParamObject, segments: string[], value: string, key: string): void {
  const [head, ...rest] = segments;
  const existing = Object.hasOwn(target, head) ? target[head] : undefined;
  const conflict = (what: string) => new ParamsError([{ field: key, message: `${key} ${what}` }]);
  if (rest.length === 0) {
    // A plain key repeated is a list, as the gateway reads repeated query parameters.
    if (existing === undefined) target[head] = value;
    else if (typeof existing === 'string') target[head] = [existing, value];
    else if (Array.isArray(existing) && isValueList(existing)) existing.push(value);
    else throw conflict('gives a value where other parameters give an object');
    return;
  }
  if (rest[0] === '') {
    const list = existing ?? (target[head] = []);
    if (!Array.isArray(list)) throw conflict('appends to a list where other parameters give an object or a value');
    if (rest.length === 1) {
      if (!isValueList(list)) throw conflict('mixes values and objects in one list');
      list.push(value);
      return;
    }
    // `a[][x]=1&a[][y]=2&a[][x]=3`: a key the last element already has starts the next element (Rack's rule).
    const last = list.at(-1);
    const element = isObject(last) && !hasPath(last, rest.slice(1)) ? last : undefined;
    if (last !== undefined && !isObject(last)) throw conflict('mixes values and objects in one list');
    const into = element ?? {};
    if (!element) list.push(into);
    place(into, rest.slice(1), value, key);
    return;
  }
  const object = existing ?? (target[head] = {});
  if (!isObject(object)) throw conflict(typeof object === 'string' ? 'gives an object where another parameter gives a value' : 'gives an object where other parameters give a list');
  place(object, rest, value, key);
}

/** Builds the nested value of bracketed `[key, value]` pairs; a key that is not bracket syntax is a plain name. */
export function buildParams(pairs: Iterable<[string, string]>): ParamObject {
  const root: ParamObject = {};
  const errors: FieldError[] = [];
  for (const [key, value] of pairs) {
    const segments = keySegments(key) ?? [key];
    if (segments.some((segment) => FORBIDDEN_KEYS.has(segment))) {
      errors.push({ field: key, message: `${key} names a reserved property` });
      continue;
    }
    if (segments.length > MAX_INPUT_DEPTH) {
      errors.push({ field: key, message: `${key} nests deeper than ${MAX_INPUT_DEPTH} levels` });
      continue;
    }
    try {
      place(root, segments, value, key);
    } catch (err) {
      if (!(err instanceof ParamsError)) throw err;
      errors.push(...err.errors);
    }
  }
  if (errors.length > 0) throw new ParamsError(errors);
  return root;
}

/** Turns a built node into the JSON value the DTO expects; compiled once per schema, run per request. */
export type Coercer = (node: ParamNode) => unknown;

/** Looks a `$ref` up among the component schemas of the DTO classes. */
export type SchemaResolver = (ref: string) => JsonSchema | undefined;

const typesOf = (schema: JsonSchema): string[] => {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
};

/** `{ "0": a, "2": b }` -> `[a, b]` in index order; undefined when a key is not an index. */
function indexedList(node: ParamObject): ParamNode[] | undefined {
  const keys = Object.keys(node);
  if (!keys.every((k) => INDEX.test(k))) return undefined;
  return keys.sort((a, b) => Number(a) - Number(b)).map((k) => node[k]);
}

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function scalar(types: string[], enumValues: unknown[] | undefined): Coercer {
  const text = types.includes('string') && !types.includes('integer') && !types.includes('number');
  return (node) => {
    // An id or code sent as a JSON number (`"uid": 12345`, as Rails stored it in a text column) is its text;
    // a number past 2^53 is not, since JSON.parse has already rounded it.
    if (typeof node === 'number' && text && Number.isSafeInteger(node)) return String(node);
    if (typeof node !== 'string') return node;
    // An enum of numbers or booleans (`@IsIn([1, 2])`) matches by its text.
    const listed = enumValues?.find((v) => typeof v !== 'string' && String(v) === node);
    if (listed !== undefined) return listed;
    const bool = types.includes('boolean') ? booleanOfText(node) : undefined;
    if (bool !== undefined) return bool;
    if (types.includes('integer') && INTEGER.test(node) && Number.isSafeInteger(Number(node))) return Number(node);
    if (types.includes('number') && NUMBER.test(node) && Number.isFinite(Number(node))) return Number(node);
    return node;
  };
}

/** Without a schema: lists by their indices (Rails' reading), everything else as sent. */
const untyped: Coercer = (node) => {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) return node.map(untyped);
  const list = indexedList(node);
  if (list) return list.map(untyped);
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, untyped(v)]));
};

/**
 * A coercer for the value a JSON Schema describes (the one class-validator-jsonschema derives from the
 * DTO's decorators, as the OpenAPI document shows it): objects by their properties, arrays by their
 * items, and `integer`, `number` and `boolean` fields from their text. Text fields and dates stay text,
 * as a JSON body would carry them. Anything the schema does not describe keeps its text, for the
 * validator to judge. `json`: the value is a JSON body, whose numbers and booleans may come as text
 * (`"user_id": "8"`, as Rails read them); its structure stays as sent.
 */
export function compileCoercer(schema: JsonSchema | undefined, resolve: SchemaResolver, json = false): Coercer {
  const compiled = new Map<string, Coercer>();
  // A JSON body has its structure already: only its text values are read, never its keys made into lists.
  const asSent: Coercer = json ? (node) => node : untyped;

  const compile = (s: JsonSchema | undefined, depth: number): Coercer => {
    if (!s || depth > MAX_INPUT_DEPTH) return asSent;
    if (typeof s.$ref === 'string') {
      const ref = s.$ref;
      let coercer = compiled.get(ref);
      if (!coercer) {
        // Set before compiling, so a class that contains itself refers to its own coercer.
        let inner: Coercer = asSent;
        coercer = (node) => inner(node);
        compiled.set(ref, coercer);
        inner = compile(resolve(ref), depth + 1);
      }
      return coercer;
    }
    const types = typesOf(s);
    const properties = s.properties as Record<string, JsonSchema> | undefined;
    if (types.includes('array') || s.items) {
      const items = compile(s.items as JsonSchema | undefined, depth + 1);
      // A single plain value stays text, as in Rails (`roles[]=admin` is the list): the DTO's own
      // transform may read text (csv_days "0101010"), and the validator refuses it otherwise.
      return (node) => {
        if (typeof node === 'string') return node;
        const list = Array.isArray(node) ? node : json ? undefined : indexedList(node);
        return list ? list.map(items) : asSent(node);
      };
    }
    if (types.includes('object') || properties) {
      const byName = new Map(Object.entries(properties ?? {}).map(([name, p]) => [name, compile(p, depth + 1)]));
      const additional = typeof s.additionalProperties === 'object' ? compile(s.additionalProperties as JsonSchema, depth + 1) : asSent;
      return (node) =>
        isObject(node) ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, (byName.get(k) ?? additional)(v)])) : asSent(node);
    }
    if (types.length > 0 || Array.isArray(s.enum)) return scalar(types, s.enum as unknown[] | undefined);
    return asSent;
  };

  return compile(schema, 0);
}

/** Parses `application/x-www-form-urlencoded` text into pairs, as a query string is read. */
export const formPairs = (text: string): [string, string][] => [...new URLSearchParams(text)];
