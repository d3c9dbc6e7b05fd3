/** `1 match`, `1,204 matches`: a count and its noun, for every surface that says how many. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
