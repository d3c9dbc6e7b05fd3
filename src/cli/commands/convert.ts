import { AtifExportError } from '../../core/formats/atifExport';
import { atifPieces, writeAtifFile } from '../../core/formats/atifFile';
import { checkTargets } from '../../core/output/safeWrite';
import { loadTrajectory } from '../../core/io/load';
import { runsOf } from '../../core/stats';
import { parseCommandArgs, UsageError, type CliCommand } from '../args';
import { pickRun } from './common';
import { maxBytesOption } from './stats';

export const convertCommand: CliCommand = {
  name: 'convert',
  usage: `convert FILE --to atif [--out FILE] [--force] [--run N] [--max-size-mb N] [--no-redact]
                                             Write any trajectory we read as ATIF (Harbor's trajectory format),
                                             to --out or standard output. A file of many runs becomes one ATIF
                                             document per line unless --run picks one. Never overwrites FILE;
                                             --force replaces an existing --out file. Secrets are redacted
                                             unless --no-redact.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      to: { type: 'string' },
      out: { type: 'string' },
      run: { type: 'string' },
      'max-size-mb': { type: 'string' },
      force: { type: 'boolean' },
      'no-redact': { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('convert takes exactly one FILE.');
    if (values.to !== 'atif') throw new UsageError(values.to === undefined ? 'convert needs --to atif.' : `--to takes atif, not "${values.to}".`);
    const overwrite = values.force === true;
    if (values.out !== undefined) await checkTargets([{ path: values.out, label: '--out' }], { inputs: [positionals[0]], overwrite });
    const loaded = await loadTrajectory(positionals[0], { maxBytes: maxBytesOption(values['max-size-mb']) });
    const runs = values.run !== undefined ? [pickRun(loaded, values.run)] : runsOf(loaded);
    const redacted = values['no-redact'] === true ? undefined : { count: 0, kinds: {} };
    const removedNote = () => (redacted?.count ? ` (${redacted.count} secret value${redacted.count === 1 ? '' : 's'} redacted)` : '');
    try {
      if (values.out === undefined) {
        // In pieces: a document may be larger than one string can hold.
        for (const piece of atifPieces(loaded, runs, redacted).pieces()) io.out(piece);
        if (redacted?.count) io.err(`agent-trace-lens: ${removedNote().slice(2, -1)} in the ATIF printed; --no-redact keeps them\n`);
        return 0;
      }
      const written = await writeAtifFile(values.out, loaded, runs, { overwrite, redacted });
      io.err(`ATIF written to ${written.path} (${written.documents === 1 ? 'one document' : `${written.documents} documents, one per line`})${removedNote()}\n`);
      return 0;
    } catch (e) {
      if (e instanceof AtifExportError) throw new UsageError(e.message);
      throw e;
    }
  },
};
