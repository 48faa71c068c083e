#!/usr/bin/env node
// The mgpu-train command: the project's CLI, from the compiled JavaScript in dist/ when `npm run
// build` made it from the sources as they are now, else from its TypeScript sources through tsx's
// loader (lib/source-hash.mjs decides; the coordinator starts its workers and threads the same way).
import { importProjectModule } from '../lib/source-hash.mjs';

await importProjectModule('cli/main');
