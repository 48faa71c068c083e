// JSON.parse keeps the last of two equal keys without a word; a config file must not say two
// things at one key path. This scanner walks JSON that JSON.parse has already accepted.

/** A key met twice in one JSON object: its key path and the lines of both. */
export interface DuplicateKey {
  keyPath: string;
  firstLine: number;
  line: number;
}

interface Frame {
  path: string;
  keys?: Map<string, number>; // an object's keys and their lines; absent for an array
  index: number; // an array's element index
  expectKey: boolean;
}

/** The first duplicate key in valid JSON source, or null. */
export function findDuplicateJsonKey(source: string): DuplicateKey | null {
  const stack: Frame[] = [];
  let line = 1;
  let pendingKey: string | null = null; // the key whose value comes next
  const childPath = (top: Frame | undefined) => {
    if (!top) return '';
    if (!top.keys) return `${top.path}[${top.index}]`;
    return top.path ? `${top.path}.${pendingKey}` : pendingKey!;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const top = stack[stack.length - 1];
    if (c === '\n') line++;
    else if (c === '{' || c === '[') {
      stack.push({ path: childPath(top), keys: c === '{' ? new Map() : undefined, index: 0, expectKey: c === '{' });
    } else if (c === '}' || c === ']') stack.pop();
    else if (c === ',' && top) {
      if (top.keys) top.expectKey = true;
      else top.index++;
    } else if (c === '"') {
      let end = i + 1;
      while (source[end] !== '"') end += source[end] === '\\' ? 2 : 1;
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(source.slice(i, end + 1)) as string;
        const firstLine = top.keys.get(key);
        pendingKey = key;
        if (firstLine !== undefined) return { keyPath: childPath(top), firstLine, line };
        top.keys.set(key, line);
        top.expectKey = false;
      }
      i = end;
    }
  }
  return null;
}
