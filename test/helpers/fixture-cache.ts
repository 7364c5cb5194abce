import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where large generated fixtures are kept between runs on one machine. */
export const FIXTURE_DIR = join(tmpdir(), 'training-api-fixtures');

/**
 * The path of `name`'s file under the OS temp dir, made by `make` when it is not there yet: a test that
 * generates a large file (a 60 MiB CSV, a 200,000-row workbook) pays for it once per machine rather
 * than once per run. The name holds a hash of `sources` (the modules whose code makes the file, as
 * `import.meta.url`) and `key` (the sizes asked for), so that a changed generator makes it afresh. The
 * file is written aside and renamed, so a run beside this one finds the whole file or none.
 */
export async function cachedFixture(
  name: string,
  sources: readonly (string | URL)[],
  key: string,
  make: () => Buffer | string | Promise<Buffer | string>,
): Promise<string> {
  const hash = createHash('sha256').update(key);
  for (const source of sources) hash.update(await readFile(new URL(source)));
  const dot = name.lastIndexOf('.');
  const path = join(FIXTURE_DIR, `${name.slice(0, dot)}-${hash.digest('hex').slice(0, 16)}${name.slice(dot)}`);
  if (
    await stat(path).then(
      (found) => found.isFile(),
      () => false,
    )
  )
    return path;
  const content = await make();
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  await writeFile(partial, content);
  await rename(partial, path);
  return path;
}
