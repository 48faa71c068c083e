// The tests of the native addons (the slab mapping and the C float kernels) are skipped, with the
// reason, where the addons could not be built: a user's install may fall back to JavaScript. CI
// sets MGPU_REQUIRE_NATIVE=1, which turns that skip into a failure, so a broken build can never
// leave CI green while the default fast path goes untested.

/** `reason` (a string: skip, saying why) or false (run); under MGPU_REQUIRE_NATIVE=1 a reason throws. */
export function nativeSkip(reason: string | false): string | false {
  if (reason !== false && process.env.MGPU_REQUIRE_NATIVE === '1') {
    throw new Error(`MGPU_REQUIRE_NATIVE=1, but ${reason} (npm run build:native says why)`);
  }
  return reason;
}
