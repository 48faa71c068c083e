// CRC-32C (Castagnoli, reflected polynomial 0x82f63b78) bit by bit, as its definition reads: a
// reference for the tests that shares no code with src/shared/crc32c.ts's tables.

export function crc32cBitwise(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
