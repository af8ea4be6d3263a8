// The entry point of startTestApiProcess (api-server-process.ts): a Content API server over the
// dist/ in argv[2] (its state dir in argv[3]), alone in this process, so that a test can read the server's own memory.
import { startTestApi } from './api-server.ts';

const api = await startTestApi({ distDir: process.argv[2]!, stateDir: process.argv[3]! });
process.stdout.write(`listening at ${api.url}\n`);
