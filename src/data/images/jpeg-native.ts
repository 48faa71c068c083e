// The native JPEG decoder (native/src/jpeg-decode.c, libjpeg-turbo's TurboJPEG; built only where
// TurboJPEG is installed: scripts/ci/install-turbojpeg.sh) and which decoder a run's JPEGs get.
// Where it loads, 8-bit JPEGs it fully handles are decoded by it, synchronously in the decoding
// thread, and everything else by sharp (decode-jpeg-native.ts says which); where it does not, or
// MGPU_JPEG_DECODER=sharp is set, sharp decodes every image. The two decoders' pixels differ
// slightly (their resampling rounds differently), so the choice is part of what the machines of
// a run compare at start-up (cluster.ts configHash) and the run's header names it.
import { loadAddon, type AddonLoad } from '../../shared/native-addon.ts';

export interface JpegAddon {
  /** [width, height, subsampling, colorspace] (TurboJPEG's TJSAMP_* and TJCS_*), or null: not a JPEG it reads. */
  header(jpeg: Uint8Array): [number, number, number, number] | null;
  /** Decodes at 1/denom and resizes into `out` along `axes` (jpeg-geometry.ts); throws libjpeg's message on a damaged file. */
  decode(jpeg: Uint8Array, out: Uint8Array, channels: 1 | 3, denom: number, axes: Float64Array, outWidth: number, outHeight: number): void;
  /** e.g. "libjpeg-turbo 2.1.5". */
  version(): string;
}

/** The environment variable that turns the native decoder off (every machine of a run must agree). */
export const JPEG_DECODER_ENV = 'MGPU_JPEG_DECODER';

let loaded: AddonLoad<JpegAddon> | null = null;

/** The addon, or why JPEGs go to sharp (not built, does not load, or turned off by MGPU_JPEG_DECODER=sharp). */
export function jpegAddon(env: NodeJS.ProcessEnv = process.env): AddonLoad<JpegAddon> {
  if (env[JPEG_DECODER_ENV] === 'sharp') return { addon: null, reason: `${JPEG_DECODER_ENV}=sharp` };
  if (loaded) return loaded;
  loaded = loadAddon<JpegAddon>('mgpu_jpeg', 'JPEG decoder', ['header', 'decode', 'version']);
  // The build leaves it out where TurboJPEG is missing: say what to install before rebuilding.
  if (loaded.reason?.includes('is not built')) loaded.reason += '; it needs TurboJPEG first (Debian, Ubuntu: apt install libturbojpeg0-dev)';
  return loaded;
}

/** The JPEG decoder's name, the same on every machine that would make the same pixels: "libjpeg-turbo 2.1.5" or "sharp". */
export function jpegDecoderName(env: NodeJS.ProcessEnv = process.env): string {
  const { addon } = jpegAddon(env);
  return addon ? addon.version() : 'sharp';
}

/** For the run's header: which decoder takes the JPEGs, and why sharp where it is sharp. */
export function describeJpegDecoder(env: NodeJS.ProcessEnv = process.env): string {
  const load = jpegAddon(env);
  if (load.addon) return `JPEGs by ${load.addon.version()} (mgpu_jpeg), other images by sharp`;
  return `every image by sharp (${load.reason})`;
}

/** Whether a config's data (its `data` section) decodes images: an images, webdataset or image tfrecord split. */
export function decodesImages(data: unknown): boolean {
  const d = data as { train?: { type?: string; image?: unknown }; eval?: { type?: string; image?: unknown } | null } | undefined;
  return [d?.train, d?.eval].some((s) => s?.type === 'images' || s?.type === 'webdataset' || (s?.type === 'tfrecord' && s.image !== undefined));
}
