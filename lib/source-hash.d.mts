// Types of source-hash.mjs (plain JavaScript: it runs before any loader is registered).
export declare const ROOT: string;
export declare const DIST: string;
export declare const DIST_STAMP: string;
export declare function sourceHash(): string;
export declare function distIsFresh(): boolean;
export declare function importProjectModule(relativeToSrc: string): Promise<Record<string, unknown>>;
export declare function registerTypeScript(esm: boolean): Promise<void>;
