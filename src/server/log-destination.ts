import pino from 'pino';

/** More than a busy turn of the event loop logs, so that lines are written when the turn ends, not before. */
const TURN_BUFFER_CHARACTERS = 256 * 1024;

/**
 * The server's log on standard output. The lines a turn of the event loop makes are written
 * together, by this thread, as the turn ends: under load that is one system call for the lines of
 * many requests, where writing each one costs a call of its own (and pino's default hands each to
 * the thread pool, which costs two thread wake-ups more). A line is thus written within the turn
 * that made it, and whatever is still held is written when the process exits.
 *
 * The lines are held in an array and joined once, when they are written. Held by sonic-boom, each
 * line would be appended to one string that it measures at every line, and measuring a string made
 * by appending copies the whole of it: a turn of n lines copied its text n times (12 KB a request
 * at 50 connections, the largest allocation of a request).
 */
export function turnBufferedStdout(): pino.DestinationStream {
  // Synchronous and unbuffered: each write below goes to the system at once, as one call.
  const output = pino.destination({ dest: 1, sync: true });
  let lines: string[] = [];
  let held = 0;
  let flushScheduled = false;
  const writeHeld = (): void => {
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    held = 0;
    output.write(text);
  };
  const flush = (): void => {
    flushScheduled = false;
    writeHeld();
  };
  process.once('exit', writeHeld);
  return {
    write(line: string) {
      lines.push(line);
      held += line.length;
      if (held >= TURN_BUFFER_CHARACTERS) writeHeld();
      else if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },
  };
}
