// A server serves builds made for its own public URL only. A build's image URLs name the public URL
// it was made for (manifest.publicUrl), so serving one made for another (a `quire build` beside the
// server, on another PORT and without QUIRE_PUBLIC_URL) hands clients URLs that lead elsewhere.
import { withCode } from '../problems/problem.ts';
import type { Manifest } from '../export/manifest.ts';

type BuildFacts = Pick<Manifest, 'buildId' | 'publicUrl'>;

const fix = (serverUrl: string) =>
  `build with QUIRE_PUBLIC_URL=${serverUrl}, or with this server's state dir and no QUIRE_PUBLIC_URL (a build beside a running server takes its public URL)`;

/** Why a server did not swap in a new build: it keeps serving the one it has. */
export function refusedBuildMessage(build: BuildFacts, serverUrl: string): string {
  return withCode(
    `dist/ now holds build ${build.buildId.slice(0, 12)}, made for ${build.publicUrl}, not for this server's public URL ${serverUrl}: not served (its image URLs lead there); the last good build stays served. To serve it, ${fix(serverUrl)}`,
    'BUILD_PUBLIC_URL_MISMATCH',
  );
}

/** A server with no build of its own to serve (its first build failed) serves the last good one, whatever it was made for: said. */
export function servedForOtherUrlMessage(build: BuildFacts, serverUrl: string): string {
  return withCode(
    `warning: the build served, ${build.buildId.slice(0, 12)}, was made for ${build.publicUrl}, not for this server's public URL ${serverUrl}: its image URLs lead there until a build of this server succeeds`,
    'BUILD_PUBLIC_URL_MISMATCH',
  );
}
