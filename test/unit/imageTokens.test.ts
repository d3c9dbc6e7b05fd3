import { strict as assert } from 'node:assert';
import path from 'node:path';
import { test } from 'node:test';
import { imageSize, imageSizeOfBase64 } from '../../src/core/io/imageSize';
import { imageRuleFor, modelImage } from '../../src/core/tokens/imageTokens';
import { billRunAsHappened } from '../../src/core/simulate';
import { findStrategy } from '../../src/core/compaction/registry';
import { runCompaction } from '../../src/core/compaction/runner';
import { buildReport } from '../../src/core/report/viewModel';
import { charEstimateCounter, tiktokenCounter } from '../../src/core/tokens';
import { loadRun, parseRunText } from '../helpers/runs';
import { fixture, REPO_ROOT } from '../helpers/paths';
import { promptTokensOf } from '../../src/core/compaction';
import { runCli } from '../helpers/cli';

// Images were "[image]", two tokens, wherever a log carried one: a screenshot a provider bills at
// 1,500 tokens and more, on every later request, vanished from prompt sizes, triggers and bills.
// They are now read for their size and modelled by their provider's published rule.

const CODEX_WITH_IMAGE = path.join(REPO_ROOT, 'wild', 'files', 'tomjnsn__agentlogs', 'images.jsonl');

/** A PNG's first 24 bytes: signature, IHDR length and type, width and height. */
function pngHead(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(b, 0);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

test('image sizes come from the image\'s own header: PNG, GIF, WebP (lossy, lossless, extended) and a JPEG whose frame sits behind an EXIF block', () => {
  assert.deepEqual(imageSize(pngHead(2536, 2508)), { width: 2536, height: 2508, format: 'png' });
  const gif = Buffer.from('GIF89a\x40\x01\xf0\x00', 'latin1');
  assert.deepEqual(imageSize(gif), { width: 320, height: 240, format: 'gif' });
  const vp8 = Buffer.alloc(30);
  vp8.write('RIFF', 0, 'latin1'); vp8.write('WEBP', 8, 'latin1'); vp8.write('VP8 ', 12, 'latin1');
  vp8.writeUInt16LE(800, 26); vp8.writeUInt16LE(600, 28);
  assert.deepEqual(imageSize(vp8), { width: 800, height: 600, format: 'webp' });
  const vp8l = Buffer.alloc(30);
  vp8l.write('RIFF', 0, 'latin1'); vp8l.write('WEBP', 8, 'latin1'); vp8l.write('VP8L', 12, 'latin1');
  vp8l.writeUInt32LE((1023 & 0x3fff) | ((767 & 0x3fff) << 14), 21);
  assert.deepEqual(imageSize(vp8l), { width: 1024, height: 768, format: 'webp' });
  const vp8x = Buffer.alloc(30);
  vp8x.write('RIFF', 0, 'latin1'); vp8x.write('WEBP', 8, 'latin1'); vp8x.write('VP8X', 12, 'latin1');
  vp8x.writeUIntLE(1919, 24, 3); vp8x.writeUIntLE(1079, 27, 3);
  assert.deepEqual(imageSize(vp8x), { width: 1920, height: 1080, format: 'webp' });
  // SOI, an APP1 (EXIF) segment of 9,000 bytes, then SOF0 with height 1080 and width 1920.
  const exif = Buffer.alloc(9002, 0);
  exif[0] = 0xff; exif[1] = 0xe1; exif.writeUInt16BE(9000, 2);
  const sof = Buffer.from([0xff, 0xc0, 0, 17, 8, 0x04, 0x38, 0x07, 0x80, 3]);
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8]), exif, sof, Buffer.alloc(20)]);
  assert.equal(imageSize(jpeg.subarray(0, 3000)), 'more', 'the head alone does not hold the frame');
  assert.deepEqual(imageSizeOfBase64(`data:image/jpeg;base64,${jpeg.toString('base64')}`), { width: 1920, height: 1080, format: 'jpeg' });
  assert.equal(imageSizeOfBase64(Buffer.from('not an image at all').toString('base64')), undefined);
});

test('the providers\' published rules: OpenAI\'s worked examples, Anthropic\'s downscale, Gemini\'s tiles', () => {
  const tokens = (model: string, w: number, h: number, detail?: string) => modelImage({ width: w, height: h, ...(detail ? { detail } : {}) }, model).tokens;
  // OpenAI's examples: 1024 × 1024 high is 765; 2048 × 4096 is brought to 768 × 1536, 6 tiles, 1,105; low is the base.
  assert.equal(tokens('gpt-4o', 1024, 1024), 765);
  assert.equal(tokens('gpt-4o-2024-08-06', 2048, 4096), 1105);
  assert.equal(tokens('gpt-4o', 4096, 4096, 'low'), 85);
  // Patch models: 1800 × 2400 shrinks to 1056 × 1408, 1,452 patches, × 1.62 on gpt-4.1-mini.
  assert.equal(tokens('gpt-4.1-mini', 1800, 2400), Math.ceil(1452 * 1.62));
  assert.equal(tokens('gpt-5-mini', 1024, 1024), Math.ceil(1024 * 1.62));
  assert.equal(tokens('gpt-5.2-codex', 1298, 614), 70 + 140 * 6);
  // Anthropic: a 2536 × 2508 screenshot is shrunk to 1,568 patches at most; Opus 4.7 keeps more.
  const sonnet = tokens('claude-sonnet-4-5-20250929', 2536, 2508)!;
  assert.ok(sonnet > 1500 && sonnet <= 1568, `${sonnet}`);
  assert.equal(tokens('claude-3-5-sonnet-20241022', 560, 280), 20 * 10);
  const opus47 = tokens('claude-opus-4-7', 2536, 2508)!;
  assert.ok(opus47 > 4000 && opus47 <= 4784, `${opus47}`);
  // Gemini: small images one tile; a 1000 × 800 image four 768-px tiles; Gemini 3 a flat 1,120.
  assert.equal(tokens('gemini-2.5-pro', 384, 300), 258);
  assert.equal(tokens('gemini-2.5-flash', 1000, 800), 258 * 4);
  assert.equal(tokens('gemini-3-pro-preview', 1000, 800), 1120);
  // A model without a rule says which rule stood in; an image of unknown size takes the ceiling.
  assert.match(imageRuleFor('qwen3-coder').name, /no image rule known for "qwen3-coder", so GPT-4o's stands in/);
  const unknownSize = modelImage({ mediaType: 'image/png' }, 'claude-sonnet-4-5');
  assert.equal(unknownSize.tokens, 1568);
  assert.match(unknownSize.rule!, /size not in the log/);
});

test('codex: a pasted screenshot is a 1298 × 614 PNG the replay and stats --tokens count at GPT-5\'s rule, said to be modelled (real rollout)', async () => {
  const run = await loadRun(CODEX_WITH_IMAGE);
  const withImages = run.steps.filter((s) => s.images);
  assert.equal(withImages.length, 1);
  const [image] = withImages[0].images!;
  assert.equal(withImages[0].kind, 'user');
  assert.deepEqual([image.width, image.height, image.mediaType, image.tokens], [1298, 614, 'image/png', 910]);
  // Every request after the image carries it: the replay's prompts grow by its tokens each time.
  const before = billRunAsHappened({ ...run, steps: run.steps.map(({ images: _images, ...s }) => s) });
  const after = billRunAsHappened(run);
  const calls = after.billing.modelCalls;
  assert.ok(calls >= 10, `${calls} calls`);
  assert.equal(after.billing.totalInput - before.billing.totalInput, 910 * calls);
  const { code, out } = await runCli('stats', CODEX_WITH_IMAGE, '--tokens');
  assert.equal(code, 0);
  assert.match(out, /images\s+910 tokens, modelled for 1 image from its size \(OpenAI \(GPT-5\): 70 \+ 140 per 512-px tile/);
  const figure = (label: string) => Number(new RegExp(`^  ${label}\\s+([\\d,]+) tokens`, 'm').exec(out)![1].replace(/,/g, ''));
  assert.equal(figure('total'), figure('text') + figure('chat framing') + 910, 'the total holds the image');
});

test('claude-code: a 2536 × 2508 screenshot is modelled at Anthropic\'s rule, and the steps between two requests add up to the prompt growth the log recorded (real session)', async () => {
  const run = await loadRun(fixture('claude-code/agentlogs-screenshot.jsonl'));
  const shot = run.steps.find((s) => s.images)!;
  assert.equal(shot.kind, 'tool_result');
  assert.equal(shot.images!.length, 1, 'the copy in toolUseResult is not a second image');
  const [image] = shot.images!;
  assert.deepEqual([image.width, image.height, image.mediaType], [2536, 2508, 'image/png']);
  assert.ok(image.tokens! > 1500 && image.tokens! <= 1568, `${image.tokens}`);
  // Claude Code records each request's whole prompt (fresh + cache writes + reads): across the
  // request after the screenshot it grew by 1,683 tokens. What we put between the two requests
  // (the call and its result, screenshot included) must come to about that, not to 2 tokens.
  const requests = run.steps.filter((s) => s.usage?.inputTokens !== undefined);
  const [before, after] = requests.filter((s, i) => i > 0 && s.usage!.inputTokens !== requests[i - 1].usage!.inputTokens).slice(-2);
  const grew = after.usage!.inputTokens! - before.usage!.inputTokens!;
  assert.equal(grew, 1683);
  const counter = tiktokenCounter('o200k_base');
  const between = run.steps.slice(before.index, after.index).reduce((n, s) => n + promptTokensOf(s, counter), 0);
  assert.ok(Math.abs(between - grew) / grew < 0.1, `between the requests ${between}, recorded growth ${grew}`);
});

test('openai-chat, pi and cline: an image part is kept with its size; masking an observation that held one says so, as SWE-agent does, and drops its tokens', async () => {
  const png = pngHead(1024, 1024).toString('base64');
  const chat = parseRunText(JSON.stringify({ model: 'gpt-4o', messages: [
    { role: 'user', content: [{ type: 'text', text: 'What is wrong in this screenshot?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}`, detail: 'high' } }] },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'page loaded' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'captured' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] },
    { role: 'assistant', content: 'The button is cut off.' },
  ] }), { path: 'chat.json', size: 1 });
  const user = chat.steps.find((s) => s.kind === 'user')!;
  assert.deepEqual(user.images?.map((i) => [i.width, i.height, i.detail, i.tokens]), [[1024, 1024, 'high', 765]]);
  const shot = chat.steps.filter((s) => s.kind === 'tool_result')[1];
  assert.equal(shot.images?.[0].tokens, 765);

  const out = await runCompaction(chat, { strategy: findStrategy('observation-masking')!, range: [0, chat.steps.length - 1], options: { n: 1 } }, { counter: charEstimateCounter });
  const masked = out.condensed.steps[shot.index];
  assert.equal(masked.text, 'Old environment output: (1 lines omitted) (1 images omitted)');
  assert.equal(masked.images, undefined, 'the image went with the output');
  assert.ok(out.stepTokensBefore[shot.index] >= 765, 'the image counted before');
  assert.ok(out.stepTokensAfter[shot.index] < 50, 'and not after');
  // The report's Tokens card says how much of each side was images, and that it is modelled.
  const report = buildReport([out], chat, { replay: false });
  assert.equal(report.results[0].headline.imageNote, "1,530 of them image tokens before, 765 after, modelled from each image's size (OpenAI (GPT-4o): 85 + 170 per 512-px tile after fitting to 2,048 px and 768 px on the short side)");
  // The CLI's `compact` (its `images` line and --json `imageNote`) says the same: one note, from the result.
  assert.equal(out.imageNote, report.results[0].headline.imageNote);

  const pi = parseRunText([
    JSON.stringify({ type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00Z', cwd: '/w' }),
    JSON.stringify({ type: 'message', id: 'm1', parentId: null, timestamp: '2026-01-01T00:00:01Z', message: { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', data: png, mimeType: 'image/png' }], timestamp: 1 } }),
  ].join('\n'), { path: 'pi.jsonl', size: 1 });
  assert.deepEqual(pi.steps.find((s) => s.kind === 'user')?.images?.map((i) => [i.width, i.mediaType]), [[1024, 'image/png']]);
});
