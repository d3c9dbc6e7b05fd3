import type { Run, Step, StepImage } from '../model';

// What an image costs the prompt, modelled from its pixel size by the rule its provider
// publishes. No tokenizer counts images, and a log records no per-image usage, so every figure
// here is a model and its rule travels with it (`StepImage.rule`) to the views.
//
// - Anthropic: the image is shrunk (aspect kept) until its long edge is at most 1,568 px and it
//   spans at most 1,568 patches of 28 × 28 px; each patch is a token. Opus 4.7 and later take
//   2,576 px and 4,784 patches.
// - OpenAI, tiled models (GPT-4o, GPT-4.1, GPT-5, o1, o3): fitted into 2,048 × 2,048, the short
//   side brought down to 768, then a base plus a price per 512-px tile; `detail: low` is the base.
// - OpenAI, patch models (GPT-4.1 mini/nano, GPT-5 mini/nano, o4-mini): 32-px patches, at most
//   1,536, times the model's multiplier.
// - Gemini: 258 tokens up to 384 × 384, else 258 per 768-px tile; Gemini 3 bills 1,120 per image
//   at its default (high) media resolution.
// An image whose size the log does not hold (a URL, a file path) is counted at its rule's ceiling.

interface Rule {
  /** In words, for the views. */
  name: string;
  tokens(width: number, height: number, detail: string | undefined): number;
  /** Tokens of an image of unknown size: the rule's largest. */
  ceiling: number;
}

function anthropicRule(longEdge: number, maxPatches: number): Rule {
  return {
    name: `Anthropic: 28-px patches after a downscale to ${longEdge.toLocaleString('en-US')} px and ${maxPatches.toLocaleString('en-US')} patches`,
    ceiling: maxPatches,
    tokens(w, h) {
      let scale = Math.min(1, longEdge / Math.max(w, h));
      const patches = (s: number) => Math.ceil(Math.floor(w * s) / 28) * Math.ceil(Math.floor(h * s) / 28);
      for (let n = patches(scale); n > maxPatches; n = patches(scale)) scale *= Math.min(0.999, Math.sqrt(maxPatches / n));
      return patches(scale);
    },
  };
}

function openaiTiles(label: string, base: number, perTile: number): Rule {
  return {
    name: `OpenAI (${label}): ${base} + ${perTile} per 512-px tile after fitting to 2,048 px and 768 px on the short side`,
    ceiling: base + perTile * 8,
    tokens(w, h, detail) {
      if (detail === 'low') return base;
      let s = Math.min(1, 2048 / Math.max(w, h));
      s *= Math.min(1, 768 / (Math.min(w, h) * s));
      return base + perTile * Math.ceil((w * s) / 512) * Math.ceil((h * s) / 512);
    },
  };
}

function openaiPatches(label: string, multiplier: number): Rule {
  return {
    name: `OpenAI (${label}): 32-px patches, at most 1,536, × ${multiplier}`,
    ceiling: Math.ceil(1536 * multiplier),
    tokens(w, h) {
      const whole = Math.ceil(w / 32) * Math.ceil(h / 32);
      if (whole <= 1536) return Math.ceil(whole * multiplier);
      let r = Math.sqrt((32 * 32 * 1536) / (w * h));
      r *= Math.min(Math.floor((w * r) / 32) / ((w * r) / 32), Math.floor((h * r) / 32) / ((h * r) / 32));
      return Math.ceil(Math.min(1536, Math.ceil((w * r) / 32) * Math.ceil((h * r) / 32)) * multiplier);
    },
  };
}

const GEMINI_TILES: Rule = {
  name: 'Gemini: 258 tokens up to 384 × 384 px, else 258 per 768-px tile',
  ceiling: 258 * 6,
  tokens: (w, h) => (w <= 384 && h <= 384 ? 258 : 258 * Math.ceil(w / 768) * Math.ceil(h / 768)),
};
const GEMINI_3: Rule = { name: 'Gemini 3: 1,120 tokens per image at the default (high) media resolution', ceiling: 1120, tokens: () => 1120 };

const CLAUDE = anthropicRule(1568, 1568);
const CLAUDE_HIGH_RES = anthropicRule(2576, 4784);
const GPT_4O = openaiTiles('GPT-4o', 85, 170);

/** The rule for a model name; GPT-4o's stands in, and says so, for a model we know no rule for. */
export function imageRuleFor(model: string | undefined): Rule {
  const m = (model ?? '').toLowerCase();
  const claude = /claude-(?:(?:opus|sonnet|haiku)-)?(\d+)(?:[-.](\d+))?/.exec(m);
  if (claude) {
    const [major, minor] = [Number(claude[1]), Number(claude[2] ?? 0)];
    return major > 4 && major < 100 || (major === 4 && minor >= 7 && minor < 100) ? CLAUDE_HIGH_RES : CLAUDE;
  }
  if (m.includes('claude') || m.includes('anthropic')) return CLAUDE;
  if (/gemini-(?:3|[4-9])/.test(m)) return GEMINI_3;
  if (m.includes('gemini')) return GEMINI_TILES;
  if (/gpt-4\.1-mini|gpt-5[.\d]*-mini/.test(m)) return openaiPatches('mini', 1.62);
  if (/gpt-4\.1-nano|gpt-5[.\d]*-nano/.test(m)) return openaiPatches('nano', 2.46);
  if (/o4-mini/.test(m)) return openaiPatches('o4-mini', 1.72);
  if (/gpt-4o-mini/.test(m)) return openaiTiles('GPT-4o mini', 2833, 5667);
  if (/gpt-5/.test(m)) return openaiTiles('GPT-5', 70, 140);
  if (/(^|[^a-z])o[13](-|$)/.test(m)) return openaiTiles('o1/o3', 75, 150);
  if (/computer-use/.test(m)) return openaiTiles('computer use', 65, 129);
  if (/gpt-4/.test(m)) return GPT_4O;
  return { ...GPT_4O, name: `${GPT_4O.name}; no image rule known for ${model ? `"${model}"` : 'an unnamed model'}, so GPT-4o's stands in` };
}

/** `image` with its tokens and rule under `model`'s rule. */
export function modelImage(image: StepImage, model: string | undefined): StepImage {
  const rule = imageRuleFor(model);
  const known = image.width !== undefined && image.height !== undefined;
  const tokens = known ? rule.tokens(image.width!, image.height!, image.detail) : rule.ceiling;
  return { ...image, tokens, rule: known ? rule.name : `${rule.name}; size not in the log, so the rule's largest` };
}

/**
 * Models every image of a run for the model that was sent it: the step's own model, else the
 * next model the log names after it (the request that carried it), else the run's.
 */
export function modelRunImages(run: Run): void {
  let next = typeof run.meta.model === 'string' ? run.meta.model : undefined;
  for (let i = run.steps.length - 1; i >= 0; i--) {
    const step = run.steps[i];
    next = step.model ?? step.usage?.model ?? next;
    if (step.images) step.images = step.images.map((image) => modelImage(image, step.model ?? next));
  }
}

/** The rules that modelled the images of `steps`, each once, in the order met: what a figure that counts them names. */
export function imageRulesOf(steps: readonly Pick<Step, 'images'>[]): string[] {
  return [...new Set(steps.flatMap((s) => s.images?.flatMap((i) => (i.rule ? [i.rule] : [])) ?? []))];
}

/** One image in words, for a step's details: its size and its modelled tokens, with the rule. */
export function imageLine(image: StepImage): string {
  const size = image.width !== undefined && image.height !== undefined ? `${image.width}×${image.height}` : 'size not recorded';
  return `image ${size}${image.mediaType ? ` ${image.mediaType}` : ''}: ${(image.tokens ?? 0).toLocaleString('en-US')} tokens, modelled (${image.rule ?? 'no rule'})`;
}
