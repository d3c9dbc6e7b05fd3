// The extractive mode of every summarising strategy: the same sections a model would fill, filled
// from the trajectory itself. The fact layer (facts/) reads the run; its renderers arrange facts
// under each strategy's headings and within its budget.

export * from './facts';
export { bounded, cleanText, counted, firstLine, paragraph, tidy } from './facts';
