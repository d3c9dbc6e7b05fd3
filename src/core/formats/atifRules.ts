import { isRecord } from '../steps';
import { ATIF_VERSIONS } from './atifShape';

// The rules of Harbor's ATIF validator that can be checked without Python: required fields and
// their types, no fields outside the schema (Harbor's models forbid extras), step ids in order
// from 1, agent-only fields on agent steps only, ISO 8601 timestamps, and every observation
// result naming a tool call of its own step. Returns one message per broken rule, empty if none.

type Json = Record<string, unknown>;

// Fields by the version that added them (v1.5 tool_definitions; v1.7 ids, embedding, call and result extras).
const ROOT_KEYS = ['schema_version', 'session_id', 'agent', 'steps', 'notes', 'final_metrics', 'continued_trajectory_ref', 'extra'];
const ROOT_KEYS_17 = ['trajectory_id', 'subagent_trajectories'];
const AGENT_KEYS = ['name', 'version', 'model_name', 'extra'];
const STEP_KEYS = ['step_id', 'timestamp', 'source', 'model_name', 'reasoning_effort', 'message', 'reasoning_content', 'tool_calls', 'observation', 'metrics', 'extra', 'is_copied_context'];
const AGENT_ONLY = ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'];
const CALL_KEYS = ['tool_call_id', 'function_name', 'arguments'];
const RESULT_KEYS = ['source_call_id', 'content', 'subagent_trajectory_ref'];
const since = (minor: number, from: number, keys: string[]) => (minor >= from ? keys : []);
const METRIC_KEYS = ['prompt_tokens', 'completion_tokens', 'cached_tokens', 'cost_usd', 'prompt_token_ids', 'completion_token_ids', 'logprobs', 'extra'];
const FINAL_KEYS = ['total_prompt_tokens', 'total_completion_tokens', 'total_cached_tokens', 'total_cost_usd', 'total_steps', 'extra'];
const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

export function checkAtif(doc: unknown, where = 'trajectory'): string[] {
  const errors: string[] = [];
  if (!isRecord(doc)) return [`${where}: not a JSON object`];
  const version = typeof doc.schema_version === 'string' ? doc.schema_version : '';
  const minor = Number(version.replace('ATIF-v1.', ''));
  if (!ATIF_VERSIONS.includes(version)) errors.push(`${where}.schema_version: "${String(doc.schema_version)}" is not one of ${ATIF_VERSIONS.join(', ')}`);
  unknownKeys(doc, [...ROOT_KEYS, ...since(minor, 7, ROOT_KEYS_17)], where, errors);
  if (minor < 7 && typeof doc.session_id !== 'string') errors.push(`${where}.session_id: required string before ATIF-v1.7`);
  const agent = doc.agent;
  if (!isRecord(agent)) errors.push(`${where}.agent: required object`);
  else {
    unknownKeys(agent, [...AGENT_KEYS, ...since(minor, 5, ['tool_definitions'])], `${where}.agent`, errors);
    for (const key of ['name', 'version']) if (typeof agent[key] !== 'string') errors.push(`${where}.agent.${key}: required string`);
  }
  if (!Array.isArray(doc.steps) || doc.steps.length === 0) errors.push(`${where}.steps: required, at least one step`);
  else doc.steps.forEach((step, i) => checkStep(step, i, `${where}.steps[${i}]`, minor, errors));
  if (doc.final_metrics !== undefined) checkNumbers(doc.final_metrics, FINAL_KEYS, `${where}.final_metrics`, errors);
  if (Array.isArray(doc.subagent_trajectories)) {
    const seen = new Set<string>();
    doc.subagent_trajectories.forEach((sub, i) => {
      const id = isRecord(sub) ? sub.trajectory_id : undefined;
      if (typeof id !== 'string') errors.push(`${where}.subagent_trajectories[${i}].trajectory_id: required on an embedded subagent`);
      else if (seen.has(id)) errors.push(`${where}.subagent_trajectories[${i}].trajectory_id: "${id}" is not unique`);
      else seen.add(id);
      for (const e of checkAtif(sub, `${where}.subagent_trajectories[${i}]`)) errors.push(e);
    });
  }
  return errors;
}

function checkStep(step: unknown, i: number, at: string, minor: number, errors: string[]): void {
  if (!isRecord(step)) {
    errors.push(`${at}: not an object`);
    return;
  }
  unknownKeys(step, [...STEP_KEYS, ...since(minor, 7, ['llm_call_count'])], at, errors);
  if (step.step_id !== i + 1) errors.push(`${at}.step_id: expected ${i + 1} (sequential from 1), got ${JSON.stringify(step.step_id)}`);
  if (!['system', 'user', 'agent'].includes(String(step.source))) errors.push(`${at}.source: must be system, user or agent, got ${JSON.stringify(step.source)}`);
  const message = step.message;
  if (typeof message !== 'string' && !(minor >= 6 && Array.isArray(message))) errors.push(`${at}.message: required string${minor >= 6 ? ' or content parts' : ''}`);
  if (step.timestamp !== undefined && (typeof step.timestamp !== 'string' || !ISO_TIME.test(step.timestamp))) errors.push(`${at}.timestamp: not ISO 8601: ${JSON.stringify(step.timestamp)}`);
  if (step.source !== 'agent') for (const key of AGENT_ONLY) if (step[key] !== undefined && step[key] !== null) errors.push(`${at}.${key}: only allowed on agent steps`);
  const callIds = new Set<string>();
  if (step.tool_calls !== undefined) {
    if (!Array.isArray(step.tool_calls)) errors.push(`${at}.tool_calls: must be an array`);
    else step.tool_calls.forEach((call, k) => {
      const c = `${at}.tool_calls[${k}]`;
      if (!isRecord(call)) return void errors.push(`${c}: not an object`);
      unknownKeys(call, [...CALL_KEYS, ...since(minor, 7, ['extra'])], c, errors);
      if (typeof call.tool_call_id !== 'string') errors.push(`${c}.tool_call_id: required string`);
      else if (callIds.has(call.tool_call_id)) errors.push(`${c}.tool_call_id: "${call.tool_call_id}" appears twice in this step`);
      else callIds.add(call.tool_call_id);
      if (typeof call.function_name !== 'string') errors.push(`${c}.function_name: required string`);
      if (!isRecord(call.arguments)) errors.push(`${c}.arguments: required JSON object`);
    });
  }
  if (step.observation !== undefined) {
    const results = isRecord(step.observation) ? step.observation.results : undefined;
    if (!Array.isArray(results)) errors.push(`${at}.observation.results: required array`);
    else results.forEach((r, k) => {
      const c = `${at}.observation.results[${k}]`;
      if (!isRecord(r)) return void errors.push(`${c}: not an object`);
      unknownKeys(r, [...RESULT_KEYS, ...since(minor, 7, ['extra'])], c, errors);
      if (r.source_call_id !== undefined && r.source_call_id !== null && !callIds.has(String(r.source_call_id))) {
        errors.push(`${c}.source_call_id: "${String(r.source_call_id)}" is not a tool_call_id of step ${i + 1}`);
      }
      if (r.content !== undefined && typeof r.content !== 'string' && !(minor >= 6 && Array.isArray(r.content))) errors.push(`${c}.content: must be a string`);
      if (Array.isArray(r.subagent_trajectory_ref)) r.subagent_trajectory_ref.forEach((ref, n) => {
        const resolvable = isRecord(ref) && (typeof ref.trajectory_path === 'string' || typeof ref.trajectory_id === 'string');
        const named = isRecord(ref) && typeof ref.session_id === 'string';
        if (minor >= 7 ? !resolvable : !named) errors.push(`${c}.subagent_trajectory_ref[${n}]: needs ${minor >= 7 ? 'trajectory_id or trajectory_path' : 'session_id'}`);
      });
    });
  }
  if (step.metrics !== undefined) checkNumbers(step.metrics, METRIC_KEYS, `${at}.metrics`, errors);
}

function checkNumbers(value: unknown, keys: string[], at: string, errors: string[]): void {
  if (!isRecord(value)) return void errors.push(`${at}: must be an object`);
  unknownKeys(value, keys, at, errors);
  for (const [k, v] of Object.entries(value)) {
    if (k === 'extra' || Array.isArray(v) || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) errors.push(`${at}.${k}: must be a number`);
  }
}

function unknownKeys(value: Json, allowed: string[], at: string, errors: string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) errors.push(`${at}.${key}: not a field of the ATIF schema`);
}
