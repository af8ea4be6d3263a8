// The entry point of startTestApiProcess (api-server-process.ts): a Content API server over the
// dist/ in argv[2], alone in this process, so that a test can read the server's own memory.
import { startTestApi } from './api-server.ts';

const api = await startTestApi(process.argv[2]!);
process.stdout.write(`listening at ${api.url}\n`);
