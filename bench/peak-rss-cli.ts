/**
 * `training-api` as bin/training-api.js runs it, then its peak RSS on standard error
 * (`peak RSS <bytes>`, the kernel's figure for the whole process, its threads included).
 */
import { main } from '../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
process.stderr.write(`peak RSS ${process.resourceUsage().maxRSS * 1024}\n`);
