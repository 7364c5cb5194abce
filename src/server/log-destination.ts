import pino from 'pino';

/** More than a busy turn of the event loop logs, so that lines are written when the turn ends, not before. */
const TURN_BUFFER_BYTES = 256 * 1024;
/** The most one system call writes (sonic-boom's bound, which must exceed what it buffers). */
const LARGEST_WRITE_BYTES = 4 * TURN_BUFFER_BYTES;

/**
 * The server's log on standard output. The lines a turn of the event loop makes are written
 * together, by this thread, as the turn ends: under load that is one system call for the lines of
 * many requests, where writing each one costs a call of its own (and pino's default hands each to
 * the thread pool, which costs two thread wake-ups more). A line is thus written within the turn
 * that made it, and whatever is still held is written when the process exits.
 */
export function turnBufferedStdout(): pino.DestinationStream {
  const output = pino.destination({ dest: 1, sync: true, minLength: TURN_BUFFER_BYTES, maxWrite: LARGEST_WRITE_BYTES });
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    // In sync mode flush() writes at once; flushSync() would also fsync a log file every turn.
    output.flush();
  };
  process.once('exit', () => output.flushSync());
  return {
    write(line: string) {
      output.write(line);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },
  };
}
