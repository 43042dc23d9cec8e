import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeStaleWorkFolders } from './scorm.service.js';

describe('the SCORM working folders a killed catalog left', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'scorm-work-'));
  });
  afterEach(() => rm(parent, { recursive: true, force: true }));

  it('are removed once older than the cut-off; a recent one (an unpack under way) and other folders stay', async () => {
    const twoHoursAgo = new Date(Date.now() - 7_200_000);
    for (const name of ['lms-scorm-killed', 'lms-scorm-working', 'someone-elses']) {
      await mkdir(join(parent, name));
      await writeFile(join(parent, name, 'package.zip'), 'zip');
    }
    for (const name of ['lms-scorm-killed', 'someone-elses']) await utimes(join(parent, name), twoHoursAgo, twoHoursAgo);

    expect(await removeStaleWorkFolders(parent, Date.now() - 3_600_000)).toBe(1);
    expect((await readdir(parent)).sort()).toEqual(['lms-scorm-working', 'someone-elses']);
  });
});
