// How to start another process or thread of this project: when the project runs from its
// TypeScript sources, children need tsx's loader too (resolved to a file URL, so it works
// whatever the current directory).
import { fileURLToPath } from 'node:url';

const fromSource = import.meta.url.endsWith('.ts');

/** Extra node flags for a child process or worker thread running a file of this project. */
export function childExecArgv(): string[] {
  return fromSource ? ['--import', import.meta.resolve('tsx')] : [];
}

/** The path of a project module given relative to src/, in the form (.ts or .js) this run uses. */
export function projectFile(relativeToSrc: string): string {
  const ext = fromSource ? '.ts' : '.js';
  return fileURLToPath(new URL(`../${relativeToSrc}${ext}`, import.meta.url));
}
