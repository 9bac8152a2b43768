/** Reads a PNG's signature and IHDR (width, height) to check an image is what it claims. */
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function pngInfo(png: Buffer): { valid: boolean; width: number; height: number } {
  const valid = png.length > 33 && png.subarray(0, 8).equals(SIGNATURE) && png.toString('latin1', 12, 16) === 'IHDR';
  return valid ? { valid, width: png.readUInt32BE(16), height: png.readUInt32BE(20) } : { valid, width: 0, height: 0 };
}
