/**
 * Index and snapshot reports name files and quote what went wrong, and a transcript's path can hold a secret:
 * Claude Code names a project folder after its cwd (`-home-dev-ghp_…`). Reports are printed and returned to
 * library callers, so their messages and paths go through the same redactor as transcript text. (The index keeps
 * each file's real path: it is how the file is found again.)
 */

interface PathNote {
  path: string;
  reason: string;
}

interface ReportMessages {
  warnings: string[];
  errors?: PathNote[];
  excludedFiles?: PathNote[];
  knownFailures?: PathNote[];
}

export function redactReportMessages<T extends ReportMessages>(report: T, redact: (text: string) => string): T {
  const notes = (list: PathNote[] | undefined) => list?.map((note) => ({ ...note, path: redact(note.path), reason: redact(note.reason) }));
  return {
    ...report,
    warnings: report.warnings.map(redact),
    ...(report.errors ? { errors: notes(report.errors) } : {}),
    ...(report.excludedFiles ? { excludedFiles: notes(report.excludedFiles) } : {}),
    ...(report.knownFailures ? { knownFailures: notes(report.knownFailures) } : {}),
  };
}
