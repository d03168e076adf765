import type { DestinationStream } from 'pino';
import type { StepPrinter } from './step-printer.js';

/** pino's own fields, on every line: not what the daemon said. */
const FRAME_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'orderId']);
const LEVEL_NAMES: Readonly<Record<number, string>> = { 40: 'WARN ', 50: 'ERROR ', 60: 'FATAL ' };

/**
 * Where a demo provider daemon's pino logger writes: each JSON line the daemon logs becomes one printed step,
 * `provider NAME: <message> key=value...`, under its order when the line names one. The demo shows the daemon's
 * own words, the lines an operator would read in its log.
 */
export function daemonLogLines(name: string, printer: StepPrinter): DestinationStream {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        printer.note(`provider ${name}: ${line.trim()}`);
        return;
      }
      const fields = Object.entries(entry)
        .filter(([key]) => !FRAME_FIELDS.has(key))
        .map(([key, value]) => ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join('');
      const level = LEVEL_NAMES[typeof entry['level'] === 'number' ? entry['level'] : 0] ?? '';
      const message = typeof entry['msg'] === 'string' ? entry['msg'] : '';
      const text = `provider ${name}: ${level}${message}${fields}`;
      if (typeof entry['orderId'] === 'string') printer.step(entry['orderId'], text);
      else printer.note(text);
    },
  };
}
