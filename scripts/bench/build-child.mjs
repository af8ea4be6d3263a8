// `quire build` exactly as `npm run build` runs it, reporting at exit the process's peak RSS
// (render worker threads included) on stderr's last line.
process.argv.splice(2, Infinity, 'build');
process.on('exit', () => process.stderr.write(`\n${JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS })}\n`));
await import('../../bin/quire.js');
