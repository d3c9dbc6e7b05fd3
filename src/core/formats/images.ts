import { imageSizeOfBase64 } from '../io/imageSize';
import type { StepImage } from '../model';
import { isRecord } from '../steps';

// The images in a message's content, in every shape the formats write them: Anthropic blocks
// (`{type: image, source: {type: base64, media_type, data}}`), OpenAI chat parts (`image_url`),
// Responses parts (`input_image`), MCP and pi content (`{type: image, data, mimeType}`) and
// Gemini parts (`inlineData`). A step's text shows `[image]`; this keeps what the image is, so
// its prompt tokens can be modelled from its size.

/** Nesting followed into `content` (a tool result's blocks inside a message). */
const MAX_DEPTH = 4;

/** The images in `content`, or undefined when it holds none. */
function imagesIn(content: unknown): StepImage[] | undefined {
  const found: StepImage[] = [];
  collect(content, found, 0);
  return found.length > 0 ? found : undefined;
}

/** `{images}` for a step whose content holds images, `{}` otherwise: spread into a new step. */
export function imagesOf(content: unknown): { images?: StepImage[] } {
  const images = imagesIn(content);
  return images ? { images } : {};
}

/** A Gemini part holding an image's bytes or a link to one (`inlineData` / `fileData` of an `image/` type). */
export function isImagePart(p: Record<string, unknown>): boolean {
  const data = isRecord(p.inlineData) ? p.inlineData : isRecord(p.fileData) ? p.fileData : undefined;
  return typeof data?.mimeType === 'string' && data.mimeType.startsWith('image/');
}

function collect(value: unknown, into: StepImage[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const v of value) collect(v, into, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  const image = imageOf(value);
  if (image) into.push(image);
  else if ('content' in value) collect(value.content, into, depth + 1);
}

function imageOf(p: Record<string, unknown>): StepImage | undefined {
  const detail = typeof p.detail === 'string' ? p.detail : undefined;
  if (p.type === 'image' && isRecord(p.source)) {
    const s = p.source;
    const data = s.type === 'base64' ? s.data : s.url;
    return described(data, str(s.media_type), detail);
  }
  if (p.type === 'image_url') {
    const u = p.image_url;
    return isRecord(u) ? described(u.url, undefined, str(u.detail) ?? detail) : described(u, undefined, detail);
  }
  if (p.type === 'input_image' || p.type === 'computer_screenshot') return described(p.image_url, undefined, detail);
  if (p.type === 'image') return described(p.data ?? p.image ?? p.url, str(p.mimeType) ?? str(p.mime_type) ?? str(p.media_type), detail);
  if (isImagePart(p)) {
    const inline = isRecord(p.inlineData);
    const data = (inline ? p.inlineData : p.fileData) as Record<string, unknown>;
    return described(inline ? data.data : data.fileUri, str(data.mimeType), detail);
  }
  return undefined;
}

/** An image from its data (base64, a `data:` URL) or a URL; the size only where the bytes are here. */
function described(data: unknown, mediaType: string | undefined, detail: string | undefined): StepImage {
  const image: StepImage = {};
  const text = typeof data === 'string' ? data : undefined;
  const dataUrl = text?.startsWith('data:') ? /^data:([^;,]+)/.exec(text)?.[1] : undefined;
  const type = mediaType ?? dataUrl;
  if (type) image.mediaType = type;
  const isBytes = text !== undefined && (dataUrl !== undefined || !/^[a-z][a-z0-9+.-]*:/i.test(text));
  const size = isBytes ? imageSizeOfBase64(text) : undefined;
  if (size) Object.assign(image, { width: size.width, height: size.height });
  if (detail) image.detail = detail;
  return image;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}
