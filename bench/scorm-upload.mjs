// `node_modules/.bin/node bench/scorm-upload.mjs` (after `npm run build`): issue 23's done-when, "a 200 MB
// upload keeps the gateway's memory under its idle figure plus 64 MB". Every deployable in its own process
// on real Postgres and NATS (as bench/data-dump.mjs); a SCORM package of BENCH_SCORM_BYTES (200,000,000)
// built on disk as a zip of stored, incompressible (random) files, written file by file (one file's bytes in
// memory at a time, never the package); then `PUT .../scorm_package` streaming it from disk, while the
// gateway's and catalog's resident memory is sampled every 50 ms from the request's start to its answer
// (the gateway staging the body into UPLOADS, then catalog copying, checking and unpacking it).
// Prints idle and peak RSS of both and the verdict; figures go in docs/performance.md ("SCORM upload").
// Needs about 3 × the package size free: the zip in the temp folder, and UPLOADS plus FILES on the NATS server.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { crc32 } from 'node:zlib';
import { bootstrapAccountId } from './infra.mjs';
import { residentMiB } from './processes.mjs';
import { runAlone, startSeparate } from './topologies.mjs';

const packageBytes = Number(process.env.BENCH_SCORM_BYTES || 200_000_000);
const FILE_BYTES = 4 * 1024 * 1024;
/** Issue 23: the gateway stays under its idle RSS plus this much during the upload. */
const GATEWAY_BUDGET_MIB = 64;
const log = (message) => process.stderr.write(`bench:scorm: ${message}\n`);

const MANIFEST = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="bench" version="1.0" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
  <organizations default="org"><organization identifier="org"><title>Bench package</title>
    <item identifier="sco" identifierref="res"><title>Bench SCO</title></item>
  </organization></organizations>
  <resources><resource identifier="res" type="webcontent" adlcp:scormtype="sco" href="index.html"><file href="index.html"/></resource></resources>
</manifest>`;

/**
 * Writes a zip of stored (method 0) entries to `path`: the manifest, a launch page, and random `media/<n>.bin`
 * files of FILE_BYTES until `total` bytes of content. Sizes and CRC-32 go in each local header (no data
 * descriptors); under 4 GiB, so no ZIP64.
 */
async function writePackage(path, total) {
  const out = createWriteStream(path);
  const central = [];
  let offset = 0;
  const write = async (buffer) => {
    offset += buffer.length;
    if (!out.write(buffer)) await once(out, 'drain');
  };
  const header = (signature, size) => {
    const b = Buffer.alloc(size);
    b.writeUInt32LE(signature, 0);
    return b;
  };
  async function entry(name, data) {
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = header(0x04034b50, 30);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(0, 10); // time and date: 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    central.push({ nameBytes, crc, size: data.length, offset });
    await write(local);
    await write(nameBytes);
    await write(data);
  }
  await entry('imsmanifest.xml', Buffer.from(MANIFEST));
  await entry('index.html', Buffer.from('<!doctype html><title>Bench</title><p>bench package</p>'));
  for (let n = 0, left = total; left > 0; n += 1, left -= FILE_BYTES) await entry(`media/${n}.bin`, randomBytes(Math.min(FILE_BYTES, left)));
  const directoryOffset = offset;
  for (const e of central) {
    const c = header(0x02014b50, 46);
    c.writeUInt16LE(20, 4); // made by
    c.writeUInt16LE(20, 6); // needed
    c.writeUInt16LE(0x0800, 8);
    c.writeUInt16LE(0, 10);
    c.writeUInt32LE(0, 12);
    c.writeUInt32LE(e.crc, 16);
    c.writeUInt32LE(e.size, 20);
    c.writeUInt32LE(e.size, 24);
    c.writeUInt16LE(e.nameBytes.length, 28);
    c.writeUInt32LE(e.offset, 42);
    await write(c);
    await write(e.nameBytes);
  }
  const end = header(0x06054b50, 22);
  end.writeUInt16LE(central.length, 8);
  end.writeUInt16LE(central.length, 10);
  end.writeUInt32LE(offset - directoryOffset, 12);
  end.writeUInt32LE(directoryOffset, 16);
  await write(end);
  out.end();
  await once(out, 'finish');
  return central.length;
}

/** PUT of the file at `path` as the body, streamed from disk with its Content-Length. */
function putFile(url, path, size, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/zip', 'content-length': String(size) } }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    createReadStream(path).on('error', reject).pipe(req);
  });
}

const folder = await mkdtemp(join(tmpdir(), 'lms-bench-scorm-'));
try {
  await runAlone(startSeparate, { prefix: 'benchscorm', log }, async ({ system, database }) => {
    const zipPath = join(folder, 'package.zip');
    const built = performance.now();
    const files = await writePackage(zipPath, packageBytes);
    const zipBytes = (await stat(zipPath)).size;
    log(`built ${zipPath}: ${files} files, ${zipBytes} bytes in ${Math.round(performance.now() - built)} ms`);

    await bootstrapAccountId(database.url); // the bootstrap ran
    const headers = system.headers;
    const created = await fetch(`${system.baseUrl}/api/author/course_templates`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ course_templates: [{ title: 'Bench SCORM', course_type: 'scorm', is_published: true, has_unpublished_changes: false, default_days_until_due: 30 }] }),
    });
    if (created.status !== 200 && created.status !== 201) throw new Error(`creating the course answered ${created.status}: ${await created.text()}`);
    const courseId = (await created.json()).course_templates[0].id;

    const gateway = system.handles.find((h) => h.name === 'gateway');
    const catalog = system.handles.find((h) => h.name === 'catalog');
    // Idle: after start and one request, settled for a moment; the lowest of a few samples.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idle = { gateway: Infinity, catalog: Infinity };
    for (let i = 0; i < 10; i += 1) {
      idle.gateway = Math.min(idle.gateway, residentMiB([gateway]));
      idle.catalog = Math.min(idle.catalog, residentMiB([catalog]));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const peak = { ...idle };
    const sampler = setInterval(() => {
      peak.gateway = Math.max(peak.gateway, residentMiB([gateway]));
      peak.catalog = Math.max(peak.catalog, residentMiB([catalog]));
    }, 50);
    const started = performance.now();
    let answer;
    try {
      answer = await putFile(`${system.baseUrl}/api/author/course_templates/${courseId}/scorm_package`, zipPath, zipBytes, headers);
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - started) / 1000;
    if (answer.status !== 200) throw new Error(`the upload answered ${answer.status}: ${answer.text.slice(0, 1000)}`);
    const scorm = JSON.parse(answer.text).course_templates[0].scorm;
    const result = {
      zipMB: Number((zipBytes / 1e6).toFixed(1)),
      files,
      seconds: Number(seconds.toFixed(1)),
      MBps: Number((zipBytes / 1e6 / seconds).toFixed(1)),
      gatewayIdleMiB: Math.round(idle.gateway),
      gatewayPeakMiB: Math.round(peak.gateway),
      catalogIdleMiB: Math.round(idle.catalog),
      catalogPeakMiB: Math.round(peak.catalog),
      gatewayWithinBudget: peak.gateway <= idle.gateway + GATEWAY_BUDGET_MIB,
      scormVersion: scorm?.scorm_version,
      load: (await import('node:os')).loadavg().map((n) => n.toFixed(1)).join(' '),
    };
    console.log(JSON.stringify(result));
    console.log(
      `| ${result.zipMB} MB, ${files} stored files | ${result.seconds} s (${result.MBps} MB/s) | gateway RSS ${result.gatewayIdleMiB} -> ${result.gatewayPeakMiB} MiB | catalog RSS ${result.catalogIdleMiB} -> ${result.catalogPeakMiB} MiB | gateway <= idle + ${GATEWAY_BUDGET_MIB} MiB: ${result.gatewayWithinBudget ? 'met' : 'MISSED'} |`,
    );
    if (!result.gatewayWithinBudget) process.exitCode = 1;
  });
} finally {
  await rm(folder, { recursive: true, force: true });
}
