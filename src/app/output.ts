// Where a process's lines go: what it reports (out) and what went wrong or needs attention (err).
// The command line passes its terminal's (every line made printable there); a process module
// never writes to stdout or stderr itself.
export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}
