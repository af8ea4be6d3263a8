// Where a process's lines go: what it reports (out) and what went wrong or needs attention (err).
// The command line passes its terminal's, where every line is made printable. A server's and a
// worker's logs (request and delivery lines, QUIRE_LOG_FORMAT) go through their logger instead.
export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}
