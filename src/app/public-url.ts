// Where clients reach the Content API. Image URLs in built HTML, the OpenAPI `servers` entry, the
// web app's API base and the MCP tools' answers all name it, so a process decides it once.

/**
 * QUIRE_PUBLIC_URL when set; otherwise, in a process that serves nothing, the public URL of the
 * server running on the same dist/ (`runningServer`, from its record in the state dir: a build
 * made beside it is served by it); otherwise this machine's loopback name with the port clients
 * connect to: the port a server of this process listens on (the one it was given, when PORT=0),
 * or the configured PORT.
 */
export function decidePublicUrl(configured: string | null, port: number, runningServer: string | null = null): string {
  return configured ?? runningServer ?? `http://localhost:${port}`;
}
