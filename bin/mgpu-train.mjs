#!/usr/bin/env node
// The mgpu-train command. The project runs from its TypeScript sources: tsx's loader is
// registered here, and the coordinator passes it on to the workers and reduce threads it starts.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
