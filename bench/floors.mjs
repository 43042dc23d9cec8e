// `npm run bench -- --check`: the floors are the lines of the ```floors block of docs/performance.md,
//   <topology> | <operation> | <field> >= <number>      or      ... <= <number>
// where <field> is a key of a result row (rpsVsRaw, cpuVsRaw, p99Ms, ...). A row a run did not measure fails.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DOC = fileURLToPath(new URL('../docs/performance.md', import.meta.url));

export function readFloors(text = readFileSync(DOC, 'utf8')) {
  const block = /```floors\n([\s\S]*?)```/.exec(text);
  if (!block) throw new Error('docs/performance.md has no ```floors block');
  return block[1]
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^(.+?)\s*\|\s*(.+?)\s*\|\s*(\w+)\s*(>=|<=)\s*([\d.]+)$/.exec(line);
      if (!match) throw new Error(`floors: cannot read "${line}"`);
      return { topology: match[1], operation: match[2], field: match[3], op: match[4], value: Number(match[5]), line };
    });
}

export function checkFloors(floors, rows) {
  const failures = [];
  for (const floor of floors) {
    const row = rows.find((r) => r.topology === floor.topology && r.operation === floor.operation);
    const value = row?.[floor.field];
    const ok = typeof value === 'number' && (floor.op === '>=' ? value >= floor.value : value <= floor.value);
    if (!ok) failures.push(`  ${floor.line}: measured ${typeof value === 'number' ? value.toFixed(3) : 'nothing'}`);
  }
  return failures;
}
