// An image's pixel size from its own header, for the providers' image-token rules: PNG's IHDR,
// GIF's screen descriptor, WebP's VP8/VP8L/VP8X chunk, JPEG's start-of-frame marker. Logs carry
// images as base64; only the head is decoded (a JPEG's frame marker can sit behind an EXIF block,
// so that head grows until the marker is found or the image ends).

export interface ImageSize {
  width: number;
  height: number;
  /** The format the bytes say, whatever the log's media type claims. */
  format: 'png' | 'gif' | 'webp' | 'jpeg';
}

/** Base64 characters decoded at first; enough for every header but a JPEG behind a large EXIF block. */
const FIRST_CHARS = 4096;
/** A JPEG's frame marker is looked for this far at most (base64 characters). */
const MOST_CHARS = 4 * 1024 * 1024;

/** The size of a base64-encoded image (with or without a `data:` prefix), or undefined when its header is not one we read. */
export function imageSizeOfBase64(data: string): ImageSize | undefined {
  const comma = data.startsWith('data:') ? data.indexOf(',') : -1;
  const start = comma + 1;
  for (let chars = FIRST_CHARS; ; chars *= 4) {
    const end = Math.min(data.length, start + chars);
    const head = Buffer.from(data.slice(start, start + Math.floor((end - start) / 4) * 4), 'base64');
    const size = imageSize(head);
    if (size !== 'more') return size;
    if (end >= data.length || chars >= MOST_CHARS) return undefined;
  }
}

/** The size from an image's first bytes; `'more'` when a JPEG needs more of them. */
export function imageSize(b: Uint8Array): ImageSize | undefined | 'more' {
  const at = (i: number) => b[i] ?? 0;
  const be16 = (i: number) => (at(i) << 8) | at(i + 1);
  const le16 = (i: number) => at(i) | (at(i + 1) << 8);
  const be32 = (i: number) => ((at(i) << 24) >>> 0) + (at(i + 1) << 16) + (at(i + 2) << 8) + at(i + 3);
  const ascii = (i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));
  if (b.length >= 24 && at(0) === 0x89 && ascii(1, 3) === 'PNG' && ascii(12, 4) === 'IHDR') return sized(be32(16), be32(20), 'png');
  if (b.length >= 10 && ascii(0, 4) === 'GIF8') return sized(le16(6), le16(8), 'gif');
  if (b.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const chunk = ascii(12, 4);
    if (chunk === 'VP8 ') return sized(le16(26) & 0x3fff, le16(28) & 0x3fff, 'webp');
    if (chunk === 'VP8L') {
      const bits = at(21) | (at(22) << 8) | (at(23) << 16) | (at(24) << 24);
      return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1, 'webp');
    }
    if (chunk === 'VP8X') return sized(1 + (at(24) | (at(25) << 8) | (at(26) << 16)), 1 + (at(27) | (at(28) << 8) | (at(29) << 16)), 'webp');
    return undefined;
  }
  if (at(0) === 0xff && at(1) === 0xd8) return jpegSize(b, be16);
  return undefined;
}

/** Walks a JPEG's markers to its start-of-frame (SOF0–SOF15 but DHT, JPG and DAC). */
function jpegSize(b: Uint8Array, be16: (i: number) => number): ImageSize | undefined | 'more' {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    if (marker === 0xff) { i++; continue; }
    if (marker === 0xd9 || marker === 0xda) return undefined;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return i + 9 <= b.length ? sized(be16(i + 7), be16(i + 5), 'jpeg') : 'more';
    i += 2 + be16(i + 2);
  }
  return 'more';
}

function sized(width: number, height: number, format: ImageSize['format']): ImageSize | undefined {
  return width > 0 && height > 0 ? { width, height, format } : undefined;
}
