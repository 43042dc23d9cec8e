import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { MAX_SCOS, type ScormVersion } from '@lms/contracts';

/** What the player needs from `imsmanifest.xml`. */
export interface ScormManifest {
  version: ScormVersion;
  title: string;
  /** The launchable SCOs of the default organization, in order (the first is what the player launches). */
  scos: { identifier: string; title: string; href: string }[];
}

export class ManifestError extends Error {}

type Node = Record<string, unknown>;
const LISTS = new Set(['organization', 'item', 'resource', 'file', 'dependency']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: true,
  // Entities are not expanded by the parser (a manifest cannot make it fetch or blow up anything); `unescape`
  // reads the predefined ones and character references.
  processEntities: false,
  isArray: (name) => LISTS.has(name),
});

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/**
 * The text XML means: its five predefined entities and character references (`&amp;`, `&#8211;`) read, as
 * every XML reader does (`Q&amp;A.html` names `Q&A.html`). An entity the document declares itself stays as
 * written: nothing is expanded from a DOCTYPE.
 */
const unescape = (value: string): string =>
  value.replace(/&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos));/g, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name) return PREDEFINED[name];
    const code = hex ? parseInt(hex, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
const text = (value: unknown): string => {
  if (typeof value === 'string') return unescape(value).trim();
  if (value && typeof value === 'object' && '#text' in value) return unescape(String((value as Node)['#text'])).trim();
  return '';
};
const nodes = (value: unknown): Node[] => (Array.isArray(value) ? (value.filter((v) => v && typeof v === 'object') as Node[]) : []);
const attr = (node: Node, name: string): string | undefined => {
  const hit = Object.keys(node).find((key) => key.toLowerCase() === `@${name.toLowerCase()}`);
  return hit === undefined ? undefined : unescape(String(node[hit]));
};

function versionOf(manifest: Node, xml: string): ScormVersion {
  const schemaVersion = text((manifest.metadata as Node | undefined)?.schemaversion).toLowerCase();
  if (schemaVersion === '1.2') return 'scorm_1_2';
  if (schemaVersion.includes('4th')) return 'scorm_2004_4th';
  if (schemaVersion.startsWith('2004') || schemaVersion === 'cam 1.3') return 'scorm_2004_3rd';
  // No (or an unusual) schemaversion: the namespaces say which.
  if (/adlcp_rootv1p2/i.test(xml)) return 'scorm_1_2';
  if (/adlcp_v1p3/i.test(xml)) return 'scorm_2004_3rd';
  throw new ManifestError('the manifest names no SCORM version (metadata/schemaversion) this player knows: 1.2 or 2004');
}

/** `xml:base` values join like URL paths: `a/` + `b/` + `index.html`. */
const joinBase = (...parts: (string | undefined)[]) => parts.filter((p): p is string => Boolean(p)).join('');

/**
 * An item's `parameters` joined to its resource's href as SCORM's content packaging says: leading `?` and `&`
 * dropped; a fragment (`#...`) only when the href has none; otherwise after `&` when the href has a query, else `?`.
 */
export function withParameters(href: string, parameters: string | undefined): string {
  const params = (parameters ?? '').replace(/^[?&]+/, '');
  if (!params) return href;
  if (params.startsWith('#')) return href.includes('#') ? href : href + params;
  return href + (href.includes('?') ? '&' : '?') + params;
}

/** Parses a SCORM 1.2 or 2004 manifest; sequencing and metadata beyond the version are ignored. */
export function parseManifest(xml: string): ScormManifest {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new ManifestError(`imsmanifest.xml is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    throw new ManifestError(`imsmanifest.xml is not well-formed XML: ${(err as Error).message}`);
  }
  const manifest = doc.manifest as Node | undefined;
  if (!manifest || typeof manifest !== 'object') throw new ManifestError('imsmanifest.xml has no <manifest> element');
  const version = versionOf(manifest, xml);

  const resourcesNode = (manifest.resources ?? {}) as Node;
  const resourcesBase = attr(resourcesNode, 'base');
  const resources = new Map(nodes(resourcesNode.resource).map((r) => [attr(r, 'identifier') ?? '', r]));

  const organizationsNode = (manifest.organizations ?? {}) as Node;
  const organizations = nodes(organizationsNode.organization);
  const preferred = attr(organizationsNode, 'default');
  const organization = organizations.find((o) => attr(o, 'identifier') === preferred) ?? organizations[0];

  const scos: ScormManifest['scos'] = [];
  const identifiers = new Set<string>();
  const visit = (items: Node[]) => {
    for (const item of items) {
      const resource = resources.get(attr(item, 'identifierref') ?? '');
      const href = resource ? attr(resource, 'href') : undefined;
      const kind = resource ? (attr(resource, 'scormtype') ?? '').toLowerCase() : '';
      if (resource && href && kind === 'sco') {
        const identifier = attr(item, 'identifier') ?? '';
        // Each SCO is tracked by its identifier: two of one identifier would share one record, and never both complete.
        if (identifiers.has(identifier)) throw new ManifestError(`two items of the default organization have the identifier "${identifier.slice(0, 200)}"`);
        // The player addresses a SCO by its place: one past MAX_SCOS could never commit, nor its attempt complete.
        if (scos.length === MAX_SCOS) throw new ManifestError(`the manifest lists more than ${MAX_SCOS} SCOs`);
        identifiers.add(identifier);
        scos.push({ identifier, title: text(item.title), href: withParameters(joinBase(resourcesBase, attr(resource, 'base'), href), attr(item, 'parameters')) });
      }
      visit(nodes(item.item));
    }
  };
  if (organization) visit(nodes(organization.item));
  if (scos.length === 0) throw new ManifestError('the manifest names no launchable resource (an item of the default organization whose resource is a SCO with an href)');
  return { version, title: text(organization?.title) || scos[0].title || 'SCORM course', scos };
}
