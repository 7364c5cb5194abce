import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { errors } from './errors.js';

/** The prefix of each upload's temporary folder, in the system's temporary directory. */
export const UPLOAD_FOLDER_PREFIX = 'training-api-upload-';

/**
 * A request body written to a temporary file as it arrives, with its SHA-256 digest: a file of tens of
 * megabytes sent to POST /imports is never held in memory whole. The handler that uses it removes it after, unless it
 * hands it over (to an import job, which removes it when it ends); a request refused before its handler, when answered.
 */
export class SpooledUpload {
  private constructor(
    readonly path: string,
    readonly sha256: string,
    private readonly folder: string,
  ) {}

  /**
   * Reads `body` to its end into a new temporary file. More than `limit` bytes (told by Content-Length before
   * anything is read, or counted as they arrive) is a 413, and the bytes stop being read: the reply closes the
   * connection. A body that ends early or breaks off leaves nothing behind.
   */
  static async of(body: Readable, contentLength: string | undefined, limit: number): Promise<SpooledUpload> {
    const declared = contentLength === undefined ? undefined : Number(contentLength);
    if (declared !== undefined && declared > limit) throw errors.payloadTooLarge(limit);
    const folder = await mkdtemp(join(tmpdir(), UPLOAD_FOLDER_PREFIX));
    const path = join(folder, 'body');
    const file = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    const digest = createHash('sha256');
    let size = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const stop = (error: Error) => {
          body.off('data', onData).off('end', onEnd).off('error', stop);
          body.unpipe(file);
          reject(error);
        };
        const onData = (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) return stop(errors.payloadTooLarge(limit));
          digest.update(chunk);
        };
        const onEnd = () => {
          body.off('error', stop);
          if (declared !== undefined && size !== declared) reject(errors.badRequest('The request body is shorter than its Content-Length'));
          else resolve();
        };
        body.on('data', onData).once('end', onEnd).once('error', stop);
        file.once('error', stop);
        body.pipe(file);
      });
      await finished(file);
    } catch (error) {
      file.destroy();
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
    return new SpooledUpload(path, digest.digest('hex'), folder);
  }

  #used = false;
  #handedOver = false;

  /** Runs `work` with the file, which is removed after it unless `work` handed it over. */
  async use<T>(work: () => Promise<T>): Promise<T> {
    this.#used = true;
    try {
      return await work();
    } finally {
      if (!this.#handedOver) await this.remove();
    }
  }

  /** Whoever takes the file from here (an import job) removes it when done with it. */
  handOver(): void {
    this.#handedOver = true;
  }

  /** Removes the file and its folder; removing twice is harmless. */
  async remove(): Promise<void> {
    await rm(this.folder, { recursive: true, force: true });
  }

  /** Removes the file if no handler used it: its request was refused before one ran. */
  async removeUnlessUsed(): Promise<void> {
    if (!this.#used) await this.remove();
  }
}
