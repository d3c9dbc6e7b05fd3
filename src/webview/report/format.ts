// Numbers as the report shows them.

export function tokens(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** `tokens` with the approximate mark used wherever a count is an estimate. */
export function tokensApprox(n: number, approximate: boolean): string {
  return `${approximate ? '≈' : ''}${tokens(n)}`;
}

export function percent(x: number): string {
  return `${(x * 100).toFixed(Math.abs(x) < 0.1 ? 1 : 0)}%`;
}

export function usd(x: number): string {
  const digits = x !== 0 && Math.abs(x) < 0.01 ? 4 : 2;
  return `$${x.toFixed(digits)}`;
}

