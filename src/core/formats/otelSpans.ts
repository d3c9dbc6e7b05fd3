import type { JsonlRecord, ParsedInput } from './adapter';
import { isRecord } from '../steps';

// OpenTelemetry spans as the files people have hold them, brought to one shape: OTLP JSON
// (`{resourceSpans: [{resource, scopeSpans: [{spans}]}]}`, attribute values as `{stringValue}`,
// `{intValue}`…, often several exports in one file), Jaeger's JSON export (`{data: [{spans:
// [{tags}]}]}`), and the span objects the OpenTelemetry Python console exporter prints one after
// another (`{name, context: {trace_id, span_id}, parent, attributes: {…}}`), bare, in an array, or
// under `spans`, and the OpenTelemetry JS SDK's spans serialized as they are (`{name, spanContext:
// {traceId, spanId}, parentSpanId | parentSpanContext, attributes, status: {code}, startTime: [s,
// ns], events}`: in-memory exporters, test fixtures such as the Vercel AI SDK's).

export interface Span {
  traceId: string;
  spanId: string;
  parentId?: string;
  name: string;
  /** Start time in nanoseconds since the epoch, for ordering; 0 when the file has none. */
  start: number;
  attrs: Record<string, unknown>;
  events: { name: string; attrs: Record<string, unknown>; time: number }[];
  error?: string;
  /** Where the span sits in the file: its line, or in one JSON document its JSON Pointer. */
  line?: number;
  pointer?: string;
  /** The span is a record of its own (console exporter): one that makes no step is named in the coverage. */
  ownRecord?: true;
}

export type SpanFileKind = 'otlp' | 'jaeger' | 'console';

type Obj = Record<string, unknown>;

function isOtlpExport(v: unknown): boolean {
  return isRecord(v) && Array.isArray(v.resourceSpans);
}

/** One `ResourceSpans` object, as exporters that write JSON Lines (Copilot CLI) put on each line. */
function isResourceSpans(v: unknown): boolean {
  return isRecord(v) && Array.isArray(v.scopeSpans) && ('resource' in v || 'schemaUrl' in v);
}

function isJaegerExport(v: unknown): boolean {
  return isRecord(v) && Array.isArray(v.data) && v.data.some((t) => isRecord(t) && Array.isArray(t.spans) && ('traceID' in t || 'processes' in t));
}

/** A console-exporter or JS SDK span: a name, a context with trace and span ids, and attributes as an object. */
function isConsoleSpan(v: unknown): boolean {
  if (!isRecord(v) || typeof v.name !== 'string' || !(v.attributes === undefined || isRecord(v.attributes))) return false;
  return (isRecord(v.context) && 'span_id' in v.context) || (isRecord(v.spanContext) && 'spanId' in v.spanContext);
}

/** Which span file this is, or undefined; looks at the first records only. */
export function spanFileKind(input: ParsedInput): SpanFileKind | undefined {
  const values = topValues(input);
  if (values.length === 0) return undefined;
  const head = values.slice(0, 5);
  if (head.every((v) => isOtlpExport(v) || isResourceSpans(v))) return 'otlp';
  if (head.every(isJaegerExport)) return 'jaeger';
  if (head.every(isConsoleSpan)) return 'console';
  return undefined;
}

/** The top-level values: one document, its records (lines or concatenated documents), or the spans of `{spans}`. */
function topValues(input: ParsedInput): unknown[] {
  if (input.shape === 'jsonl') return input.records.map((r) => r.value);
  if (input.shape !== 'json') return [];
  const v = input.value;
  if (Array.isArray(v)) return v;
  if (isRecord(v) && Array.isArray(v.spans) && !isOtlpExport(v) && v.spans.some(isConsoleSpan)) return v.spans;
  return [v];
}

/** Every span in the file, in the order the file lists them. */
export function readSpans(input: ParsedInput, kind: SpanFileKind): Span[] {
  const spans: Span[] = [];
  if (input.shape === 'jsonl') {
    for (const record of input.records) addSpansOf(record, kind, spans);
    return spans;
  }
  // In one document, a console span is located by its place in the list that holds it.
  const values = topValues(input);
  const list = input.shape === 'json' ? (Array.isArray(input.value) ? '' : values !== undefined && isRecord(input.value) && input.value.spans === values ? '/spans' : undefined) : undefined;
  values.forEach((value, i) => addSpansOf({ value, line: 0 }, kind, spans, list === undefined ? undefined : `${list}/${i}`));
  return spans;
}

/** Adds the spans of one record (a line, a document of a stream, or an item of a document). */
export function addSpansOf({ value, line }: JsonlRecord, kind: SpanFileKind | undefined, spans: Span[], pointer?: string): void {
  // A loop, not push(...): spreading a document of 120k+ spans into one call overflows the stack.
  if (kind === 'otlp') for (const s of otlpSpans(value, line)) spans.push(s);
  else if (kind === 'jaeger') for (const s of jaegerSpans(value)) spans.push(s);
  else if (isConsoleSpan(value)) spans.push(consoleSpan(value as Obj, line, pointer));
}

function otlpSpans(doc: unknown, line: number): Span[] {
  const out: Span[] = [];
  const resourceSpans = isResourceSpans(doc) ? [doc] : isRecord(doc) && Array.isArray(doc.resourceSpans) ? doc.resourceSpans : [];
  for (const rs of resourceSpans.filter(isRecord)) {
    const scopes = Array.isArray(rs.scopeSpans) ? rs.scopeSpans : Array.isArray(rs.instrumentationLibrarySpans) ? rs.instrumentationLibrarySpans : [];
    for (const scope of scopes.filter(isRecord)) {
      for (const s of Array.isArray(scope.spans) ? scope.spans.filter(isRecord) : []) {
        const read = s instanceof ReadSpan ? s.span : otlpSpan(s);
        out.push(line ? { ...read, line } : read);
      }
    }
  }
  return out;
}

function otlpSpan(s: Obj): Span {
  const status = isRecord(s.status) ? s.status : {};
  return {
    traceId: String(s.traceId ?? ''),
    spanId: String(s.spanId ?? ''),
    parentId: s.parentSpanId ? String(s.parentSpanId) : undefined,
    name: String(s.name ?? ''),
    start: Number(s.startTimeUnixNano ?? 0),
    attrs: kvList(s.attributes),
    events: (Array.isArray(s.events) ? s.events.filter(isRecord) : []).map((e) => ({ name: String(e.name ?? ''), attrs: kvList(e.attributes), time: Number(e.timeUnixNano ?? 0) })),
    error: status.code === 2 || status.code === 'STATUS_CODE_ERROR' ? String(status.message ?? 'error') : undefined,
    line: undefined,
  };
}

/**
 * An OTLP span already read, standing in the document for the raw span (issue 23: a 23 MB export
 * parsed whole held about 40 MB of attribute lists besides the spans read from them). Its fields
 * are private, so anything else that walks the document sees an empty object.
 */
class ReadSpan {
  readonly #span: Span;
  constructor(span: Span) {
    this.#span = span;
  }
  get span(): Span {
    return this.#span;
  }
}

/**
 * The loader reads a big document element by element; an element at an OTLP span's place
 * (`resourceSpans/i/scopeSpans/j/spans/k`, or `scopeSpans/j/spans/k` in a ResourceSpans record) is
 * read into its span at once. Undefined for every other element.
 */
export function compactOtlpSpan(path: readonly (string | number)[], value: unknown): unknown {
  const n = path.length;
  if (n !== 4 && n !== 6) return undefined;
  if (n === 6 && path[0] !== 'resourceSpans') return undefined;
  const scopes = path[n - 4];
  if ((scopes !== 'scopeSpans' && scopes !== 'instrumentationLibrarySpans') || path[n - 2] !== 'spans' || !isRecord(value)) return undefined;
  try {
    return new ReadSpan(otlpSpan(value));
  } catch {
    return undefined; // attribute values nested past the stack: the loader's depth check names them
  }
}

/** OTLP's `[{key, value: {stringValue | intValue | doubleValue | boolValue | arrayValue | kvlistValue}}]`. */
function kvList(list: unknown): Obj {
  const out: Obj = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) if (isRecord(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
  return out;
}

function anyValue(v: unknown): unknown {
  if (!isRecord(v)) return v;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('boolValue' in v) return v.boolValue;
  if (isRecord(v.arrayValue)) return (Array.isArray(v.arrayValue.values) ? v.arrayValue.values : []).map(anyValue);
  if (isRecord(v.kvlistValue)) return kvList(v.kvlistValue.values);
  if ('bytesValue' in v) return v.bytesValue;
  return undefined;
}

function jaegerSpans(doc: unknown): Span[] {
  const out: Span[] = [];
  for (const trace of isRecord(doc) && Array.isArray(doc.data) ? doc.data.filter(isRecord) : []) {
    for (const s of Array.isArray(trace.spans) ? trace.spans.filter(isRecord) : []) {
      const refs = Array.isArray(s.references) ? s.references.filter(isRecord) : [];
      const parent = refs.find((r) => r.refType === 'CHILD_OF') ?? refs[0];
      const attrs = tagList(s.tags);
      out.push({
        traceId: String(s.traceID ?? trace.traceID ?? ''),
        spanId: String(s.spanID ?? ''),
        parentId: parent ? String(parent.spanID) : undefined,
        name: String(s.operationName ?? ''),
        start: Number(s.startTime ?? 0) * 1000, // microseconds
        attrs,
        events: (Array.isArray(s.logs) ? s.logs.filter(isRecord) : []).map((l) => {
          const fields = tagList(l.fields);
          return { name: String(fields.event ?? ''), attrs: fields, time: Number(l.timestamp ?? 0) * 1000 };
        }),
        error: attrs.error === true || attrs['otel.status_code'] === 'ERROR' ? String(attrs['otel.status_description'] ?? 'error') : undefined,
      });
    }
  }
  return out;
}

function tagList(list: unknown): Obj {
  const out: Obj = {};
  if (!Array.isArray(list)) return out;
  for (const t of list) if (isRecord(t) && typeof t.key === 'string') out[t.key] = t.value;
  return out;
}

function consoleSpan(s: Obj, line: number, pointer?: string): Span {
  // Python's console exporter writes snake_case; the JS SDK's own span objects, camelCase.
  const context = isRecord(s.context) ? s.context : isRecord(s.spanContext) ? s.spanContext : {};
  const parent = isRecord(s.parent) ? s.parent.span_id : isRecord(s.parentSpanContext) ? s.parentSpanContext.spanId : s.parent_id ?? s.parentSpanId ?? s.parent;
  const status = isRecord(s.status) ? s.status : {};
  return {
    traceId: String(context.trace_id ?? context.traceId ?? ''),
    spanId: String(context.span_id ?? context.spanId ?? ''),
    parentId: parent === null || parent === undefined || parent === '' ? undefined : String(parent),
    name: String(s.name),
    start: time(s.start_time ?? s.startTime),
    attrs: isRecord(s.attributes) ? s.attributes : {},
    events: (Array.isArray(s.events) ? s.events.filter(isRecord) : []).map((e) => ({ name: String(e.name ?? ''), attrs: isRecord(e.attributes) ? e.attributes : {}, time: time(e.timestamp ?? e.time) })),
    // The JS SDK's SpanStatusCode.ERROR is 2.
    error: status.status_code === 'ERROR' || status.code === 2 ? String(status.description ?? status.message ?? 'error') : undefined,
    line: line || undefined,
    ownRecord: true,
    ...(pointer !== undefined ? { pointer } : {}),
  };
}

/** Nanoseconds from an ISO time (the console exporter), the JS SDK's `[seconds, nanoseconds]`, or a number (already nanoseconds). */
function time(v: unknown): number {
  if (typeof v === 'number') return v;
  if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'number') return v[0] * 1e9 + v[1];
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    return Number.isFinite(ms) ? ms * 1e6 : 0;
  }
  return 0;
}
