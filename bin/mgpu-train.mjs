#!/usr/bin/env node
// The mgpu-train command. The project runs from its TypeScript sources: tsx's loader is
// registered here, and the coordinator passes it on to the workers and reduce threads it starts.
// Both of tsx's hooks, as `node --import tsx` registers them: a user's .ts module (data, metric)
// outside a "type": "module" package is CommonJS to Node, and without the CommonJS hook its
// import in the coordinator fails ("Cannot require() ES Module ... in a cycle").
import { register as registerCommonJs } from 'tsx/cjs/api';
import { register } from 'tsx/esm/api';

registerCommonJs();
register();
await import('../src/cli/main.ts');
