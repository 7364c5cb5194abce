import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Uploads allowed to take longer than REQUEST_TIMEOUT (a file of tens of megabytes to POST /imports
 * over a slow line) as long as they keep arriving: a client sending at this pace is uploading, not
 * holding a connection open. Node's request timeout still fires for them; its handler asks here
 * (`spareLongUpload`) before answering 408, and a spared upload is then watched window by window.
 */

/** The pace a long upload must keep: at least this many bytes in each window (about 25 KiB/s). */
const WINDOW_MS = 10_000;
const MIN_BYTES_PER_WINDOW = 256 * 1024;

interface Upload {
  since: number;
  bytesBefore: number;
}

const uploads = new WeakMap<Socket, Upload>();

/** Lets the body of `request`, not yet read, go on arriving past REQUEST_TIMEOUT at the pace above. */
export function allowLongUpload(request: IncomingMessage): void {
  const { socket } = request;
  uploads.set(socket, { since: Date.now(), bytesBefore: socket.bytesRead });
  const over = () => uploads.delete(socket);
  request.once('end', over);
  request.once('close', over);
}

/**
 * Node's request timeout fired on `socket`: true when it carries a long upload that has kept the
 * pace so far, which then goes on and is watched; `onStall` runs when it falls below the pace.
 */
export function spareLongUpload(socket: Socket, onStall: () => void): boolean {
  const upload = uploads.get(socket);
  if (!upload) return false;
  const received = socket.bytesRead - upload.bytesBefore;
  if (received < ((Date.now() - upload.since) / WINDOW_MS) * MIN_BYTES_PER_WINDOW) return false;
  let before = socket.bytesRead;
  const watch = setInterval(() => {
    if (!uploads.has(socket)) return clearInterval(watch);
    if (socket.bytesRead - before < MIN_BYTES_PER_WINDOW) {
      clearInterval(watch);
      uploads.delete(socket);
      onStall();
    }
    before = socket.bytesRead;
  }, WINDOW_MS).unref();
  socket.once('close', () => clearInterval(watch));
  return true;
}
