// The red team's payload shapes of issue 23, built at any size: the regression tests build them
// small, the scaling test at n and 8n, and `npm run bench` at the sizes the issue names.

/** ATIF whose subagents are each referenced `fanout` times, nested `depth` deep (fanout^depth steps if expanded every time). */
export function atifFanout(fanout: number, depth = 4): string {
  const level = (k: number): Record<string, unknown> => {
    const id = `sub-${k}`;
    const steps: unknown[] = [{ step_id: 1, source: 'user', message: `task at level ${k}` }];
    for (let i = 0; i < fanout; i++) {
      steps.push({
        step_id: i + 2, source: 'agent', message: `delegating ${i}`,
        tool_calls: [{ tool_call_id: `c${i}`, function_name: 'delegate', arguments: { n: i } }],
        observation: { results: [{ source_call_id: `c${i}`, ...(k < depth ? { subagent_trajectory_ref: [{ trajectory_id: `sub-${k + 1}` }] } : { content: 'done' }) }] },
      });
    }
    return {
      schema_version: 'ATIF-v1.7', session_id: `s${k}`, ...(k > 0 ? { trajectory_id: id } : {}),
      agent: { name: 'fanout', version: '1', model_name: 'm' }, steps,
      ...(k < depth ? { subagent_trajectories: [level(k + 1)] } : {}),
    };
  };
  return JSON.stringify(level(0));
}

const kv = (attrs: Record<string, string | number>) => Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } }));

function chatAttrs(i: number): Record<string, string | number> {
  return {
    'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o',
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `step ${i}` }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', name: 'bash', arguments: { cmd: `ls ${i}` } }] }]),
    'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 10,
  };
}

/** One OTLP document of `pairs` model-call and tool spans in one trace, under an agent span. */
export function otlpDocument(pairs: number): string {
  const spans: unknown[] = [{ traceId: 't1', spanId: 'root', name: 'invoke_agent a', startTimeUnixNano: '1760000000000000000', attributes: kv({ 'gen_ai.operation.name': 'invoke_agent' }) }];
  for (let i = 0; i < pairs; i++) {
    const t = String(1760000000000000000n + BigInt(i) * 2000n + 1000n);
    spans.push({ traceId: 't1', spanId: `l${i}`, parentSpanId: 'root', name: 'chat gpt-4o', startTimeUnixNano: t, attributes: kv(chatAttrs(i)) });
    spans.push({ traceId: 't1', spanId: `t${i}`, parentSpanId: 'root', name: 'execute_tool bash', startTimeUnixNano: String(BigInt(t) + 1000n), attributes: kv({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.result': `out ${i}` }) });
  }
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'agent' }) }, scopeSpans: [{ scope: { name: 'x' }, spans }] }] });
}

/** The console exporter's span stream: `pairs` model-call and tool span objects, one after another. */
export function spanStream(pairs: number): string {
  const out: string[] = [];
  const span = (id: string, name: string, start: number, attributes: Record<string, unknown>) => JSON.stringify({
    name, context: { trace_id: '0xabc', span_id: id }, parent: { span_id: 'root' }, start_time: new Date(1760000000000 + start).toISOString(), attributes,
  }, null, 2);
  out.push(JSON.stringify({ name: 'invoke_agent a', context: { trace_id: '0xabc', span_id: 'root' }, parent: null, start_time: new Date(1760000000000).toISOString(), attributes: { 'gen_ai.operation.name': 'invoke_agent' } }, null, 2));
  for (let i = 0; i < pairs; i++) {
    out.push(span(`l${i}`, 'chat gpt-4o', 2 * i + 1, chatAttrs(i)));
    out.push(span(`t${i}`, 'execute_tool bash', 2 * i + 2, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.result': `out ${i}` }));
  }
  return out.join('\n') + '\n';
}

/** A Gemini CLI JSONL session that keeps growing and rewinds its last message `n` times. */
export function geminiRewinds(n: number): string {
  const lines = [JSON.stringify({ sessionId: 's1', projectHash: 'p', startTime: '2026-01-01T00:00:00Z', lastUpdated: '2026-01-01T00:00:00Z' })];
  const msg = (id: string, type: string, text: string) => JSON.stringify({ id, timestamp: '2026-01-01T00:00:01Z', type, content: [{ text }] });
  for (let i = 0; i < n; i++) {
    lines.push(msg(`u${i}`, 'user', `question ${i}`));
    lines.push(msg(`x${i}`, 'gemini', `an answer the user rewinds ${i}`));
    lines.push(JSON.stringify({ $rewindTo: `x${i}` }));
    lines.push(msg(`g${i}`, 'gemini', `answer ${i}`));
  }
  return lines.join('\n') + '\n';
}

/** An OpenCode export of `n` rounds, each a user message and a compaction summary. */
export function opencodeSummaries(n: number): string {
  const messages: unknown[] = [];
  for (let i = 0; i < n; i++) {
    messages.push({ info: { id: `msg_u${i}`, role: 'user', time: { created: 1760000000000 + i } }, parts: [{ id: `prt_u${i}`, type: 'text', text: `do ${i}` }] });
    messages.push({ info: { id: `msg_a${i}`, role: 'assistant', summary: true, modelID: 'm', time: { created: 1760000000000 + i } }, parts: [{ id: `prt_a${i}`, type: 'text', text: `summary ${i}` }] });
  }
  return JSON.stringify({ info: { id: 'ses_1', title: 'many summaries', time: { created: 1760000000000 } }, messages });
}

/**
 * OpenCode's event rows for `n` turns: each message and tool part written three times over (pending,
 * running, completed), as a capture of `opencode.db` holds them. Repeating a real capture's rows
 * does not grow it (a repeated row is the same part again), so the scaling test builds this one.
 */
export function opencodeEventRows(n: number): string {
  const rows: unknown[] = [];
  let seq = 0;
  const row = (type: string, data: unknown) => rows.push({ aggregate_id: 'ses_1', data, id: `evt_${seq}`, seq: seq++, type });
  row('session.created.1', { info: { id: 'ses_1', title: 'rows', time: { created: 1760000000000 } }, sessionID: 'ses_1' });
  for (let i = 0; i < n; i++) {
    const at = 1760000000000 + i * 10;
    row('message.updated.1', { info: { id: `msg_u${i}`, role: 'user', time: { created: at } } });
    row('message.part.updated.1', { part: { id: `prt_u${i}`, messageID: `msg_u${i}`, type: 'text', text: `run step ${i}` } });
    row('message.updated.1', { info: { id: `msg_a${i}`, role: 'assistant', modelID: 'gpt-5', time: { created: at + 1 } } });
    for (const status of ['pending', 'running', 'completed']) {
      row('message.part.updated.1', { part: { id: `prt_t${i}`, messageID: `msg_a${i}`, type: 'tool', tool: 'bash', callID: `call_${i}`, state: { status, input: { command: `echo ${i}` }, ...(status === 'completed' ? { output: `${i}\n` } : {}) } } });
    }
  }
  return rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** An Aider chat history whose reply holds a run of `n` blank lines. */
export function aiderBlanks(n: number): string {
  return `# aider chat started at 2026-01-01 00:00:00\n\n#### fix it  \n\nLooking.\n${'\n'.repeat(n)}Done.\n\n> Tokens: 1.2k sent, 50 received.  \n`;
}

/** Base64 lines near the words "PRIVATE KEY" with no BEGIN line: `bytes` of text for the redactor. */
export function base64NearPrivateKey(bytes: number): string {
  const line = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n';
  return 'the PRIVATE KEY is below\n' + line.repeat(Math.ceil(bytes / line.length));
}

/**
 * A Cline `api_conversation_history.json` whose one XML tool call holds `n` opening parameter tags
 * that never close (the parameter regex scanned to the block's end from each), then one that does.
 */
export function clineXmlParameters(n: number): string {
  const block = `<execute_command>\n${'<command>'.repeat(n)}ls\n</command_x>\n<requires_approval>false</requires_approval>\n</execute_command>`;
  return JSON.stringify([
    { role: 'user', content: [{ type: 'text', text: '<task>\nList the files.\n</task>' }] },
    { role: 'assistant', content: [{ type: 'text', text: `Listing.\n${block}` }] },
    { role: 'user', content: [{ type: 'text', text: '[execute_command for \'ls\'] Result:\na.py' }] },
  ]);
}

/** A payload of about `bytes` from `gen(n)`: the generator's size at `probe`, scaled (the bench and the real-VS-Code scenarios build the same sizes). */
export function sized(gen: (n: number) => string, bytes: number, probe = 100): string {
  const per = Buffer.byteLength(gen(probe)) / probe;
  return gen(Math.max(1, Math.round(bytes / per)));
}
