// Build artifacts reach a build by hard link: the same bytes, no copy, never modified in place afterwards. Where
// linking is not possible (another file system, no permission, too many links) the file is copied instead.
import { copyFile, link } from 'node:fs/promises';

export async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK') throw error;
    await copyFile(from, to);
  }
}
