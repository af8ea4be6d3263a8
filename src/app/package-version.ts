// The version of Quire itself, from package.json: `quire --version` and the MCP server's
// implementation version. The Content API's contract has its own (`API_VERSION`).
import packageJson from '../../package.json' with { type: 'json' };

export const PACKAGE_VERSION: string = packageJson.version;
