// model: a module that builds it or a tfjs model.json (exactly one), and its custom layers.

import { ConfigError } from '../../errors.ts';
import { orNull, Section, text } from '../checker.ts';
import type { Config } from '../types.ts';

export function modelSection(raw: unknown, baseDir: string): Config['model'] {
  const m = Section.open(raw, 'model', ['module', 'json', 'customLayers']);
  const [module, json] = [m.opt('module', orNull(text), null), m.opt('json', orNull(text), null)];
  if ((module === null) === (json === null)) {
    throw new ConfigError(
      'model',
      module === null ? 'neither model.module nor model.json is set' : 'both model.module and model.json are set',
      'set exactly one: module (a JS/TS module whose default export builds the model) or json (a tfjs model.json)',
    );
  }
  return {
    module: module === null ? null : m.file('module', baseDir),
    json: json === null ? null : m.file('json', baseDir),
    customLayers: m.opt('customLayers', orNull(text), null) === null ? null : m.file('customLayers', baseDir),
  };
}
