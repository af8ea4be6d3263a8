// Every code Quire reports, in one table: what it means and what to do about it (and, for codes
// reported with facts from one place, the message made from them). A code used
// anywhere in src/ is typed from this table, so a code that is not here does not compile; the
// code tables in docs/ (api.md, problem-codes.md) and the OpenAPI error enum are checked against
// it (test/problems/).
// The data has no imports, so any module (and the browser-free admin views) can use it.

/** Where a code is reported; each area has its own table in the docs (docs/problem-codes.md, docs/api.md). */
export type ProblemArea =
  /** The Content API's JSON error body (`{"error": {status, code, message}}`). */
  | 'api'
  /** A command or the server refuses to go on: settings, state files, the build output. */
  | 'setup'
  /** `quire webhook set`, the Publishing tab and `set_webhook`: a URL or secret refused. */
  | 'webhook-input'
  /** What one delivery attempt came to (`webhook test`, Test connection, `test_webhook`). */
  | 'delivery'
  /** Why a delivery was not sent at all (redeliver, retry, Test connection). */
  | 'delivery-request'
  /** A problem in the content tree, printed as `path:line:col  message  [CODE]`. */
  | 'content'
  /** A result of `quire verify` / `verify_integration`, passes included. */
  | 'verify'
  /** A rule of `quire conformance` / `check_conformance` that a receiver failed or warns on. */
  | 'conformance';

export interface CodeEntry {
  readonly area: ProblemArea;
  /** What happened, in a few words (the docs' tables show it). */
  readonly meaning: string;
  /** What to do about it. */
  readonly fix: string;
  /** API codes only: the HTTP status it is sent with. */
  readonly status?: number;
  /**
   * The message, made from typed parameters, where one place reports the code with its facts
   * (what a delivery attempt came to): the CLI, the web app and MCP then say the same words.
   */
  readonly message?: (params: never) => string;
}

/** The end of an explanation of an attempt that is not retried on its own (a Test connection is sent once). */
const notRetried = (then: string) => ` This attempt is not retried: send it again ${then}.`;

export const CATALOGUE = {
  // The Content API, in the order of the table in docs/api.md.
  QUERY_INVALID: {
    area: 'api',
    status: 400,
    meaning: 'a list parameter has a bad value',
    fix: 'Correct the parameter the message names (see `/openapi.json`).',
  },
  CURSOR_INVALID: {
    area: 'api',
    status: 400,
    meaning: 'a `since` of GET /v1/changes that is not a cursor this API made, or one made for another site',
    fix: "Pass back the `cursor` of an earlier answer as it is, with the same site's key; or start again without `since`.",
  },
  API_KEY_MISSING: {
    area: 'api',
    status: 401,
    meaning: 'no key',
    fix: "Send the site's key as `Authorization: Bearer <key>` or `?key=<key>`.",
  },
  API_KEY_INVALID: {
    area: 'api',
    status: 401,
    meaning: 'a malformed, forged, rotated or unknown-site key (with `WWW-Authenticate: Bearer`)',
    fix: 'Use the key `quire keys` shows now; a rotation replaces the old one.',
  },
  CHANGES_SITE_KEY_ONLY: {
    area: 'api',
    status: 403,
    meaning: 'a preview key asked for GET /v1/changes, which tells only what is published',
    fix: 'Read the change feed with the site key (`pk_…`).',
  },
  REF_PREVIEW_KEY_ONLY: {
    area: 'api',
    status: 403,
    meaning:
      'a site key (`pk_…`) named a branch (`?ref=` or `Quire-Ref`): branch previews hold drafts and unmerged work, for the preview key only',
    fix: "Read a branch's preview with the site's preview key (`pv_…`), on the site's server; without a ref the site key reads what is published.",
  },
  ARTICLE_NOT_FOUND: {
    area: 'api',
    status: 404,
    meaning: "no published article with that slug for the key's site",
    fix: 'Take the slug from the list; drafts are never served.',
  },
  REF_NOT_FOUND: {
    area: 'api',
    status: 404,
    meaning:
      "the ref (`?ref=`, `Quire-Ref`) names no branch this server previews: none that matches `--previews`, one gone from the remote or dropped past `QUIRE_PREVIEW_BRANCHES_MAX`, one with no good build yet, or a branch without the key's site",
    fix: "Check the branch's name (the server's log names each preview it makes and drops); push the branch again, or fix its build.",
  },
  ROUTE_NOT_FOUND: { area: 'api', status: 404, meaning: 'unknown path', fix: 'See `/openapi.json` for the routes.' },
  METHOD_NOT_ALLOWED: {
    area: 'api',
    status: 405,
    meaning: 'anything but GET, HEAD, OPTIONS (with `Allow`)',
    fix: 'Use GET: the API is read-only.',
  },
  ENCODING_NOT_ACCEPTABLE: {
    area: 'api',
    status: 406,
    meaning:
      '`Accept-Encoding` refuses identity (`identity;q=0`, `*;q=0`) and accepts no coding the answer has (br, gzip; bodies under 1 KiB are kept in identity only)',
    fix: 'Accept identity, or br or gzip.',
  },
  CURSOR_EXPIRED: {
    area: 'api',
    status: 410,
    meaning:
      'the cursor is older than the change history kept (the newest 10,000 changes per site), or from another state store (one started over, or restored from a backup, is another), or made before the upgrade that gave each site positions of its own',
    fix: 'Resync: read the current state again (GET /v1/changes without `since`, or the whole list) and follow the new cursor.',
  },
  BODY_TOO_LARGE: {
    area: 'api',
    status: 413,
    meaning: 'a request body over `QUIRE_MAX_BODY_BYTES` (any route that takes a body; see Limits)',
    fix: 'Send a smaller body, or raise `QUIRE_MAX_BODY_BYTES`.',
  },
  HOST_NOT_ALLOWED: {
    area: 'api',
    status: 421,
    meaning:
      "the request names a host the server does not answer for: not `QUIRE_PUBLIC_URL`'s, nor `localhost`, `127.0.0.1` or `[::1]` with its port (a DNS-rebinding page; a proxy that passes another name); see Limits",
    fix: "Address the server by `QUIRE_PUBLIC_URL`'s host (on its machine also by `localhost` with its port); a proxy passes that host as `Host`, or as `X-Forwarded-Host` when trusted (`QUIRE_TRUST_PROXY`).",
  },
  CONTENT_UNAVAILABLE: {
    area: 'api',
    status: 503,
    meaning: 'no build yet',
    fix: 'Run `quire build`; a running server serves it without a restart.',
  },
  COMPRESSION_BUSY: {
    area: 'api',
    status: 503,
    meaning:
      '`Accept-Encoding` refuses identity (`identity;q=0`, `*;q=0`) and the answer is a body made at request time (a filtered page, a preview, a list remade at a go-live) while the server is already compressing as many as it allows (2 at a time; see Limits); sent with `Retry-After: 1`',
    fix: 'Try again after `Retry-After`, or accept identity: a request that does is answered uncompressed when the server is busy.',
  },
  CHANGES_UNAVAILABLE: {
    area: 'api',
    status: 503,
    meaning: 'this server has no change history to read: its state store cannot be read, or it serves dist/ alone',
    fix: 'Read the feed from the server that publishes (`quire start`); if its state store is damaged, restore it and restart.',
  },
  INTERNAL_ERROR: {
    area: 'api',
    status: 500,
    meaning: 'a fault of the server (logged)',
    fix: "Read the server's log for the cause.",
  },

  // A command or the server cannot go on.
  CONFIG_INVALID: {
    area: 'setup',
    meaning: 'a setting has a value Quire cannot use',
    fix: 'Correct every setting listed (`quire --help` describes them); nothing was started.',
  },
  STATE_STORE_UNREADABLE: {
    area: 'setup',
    meaning:
      '`quire.db` in the state dir cannot be made, opened or read as the state store (empty, damaged, foreign or not permitted)',
    fix: 'Restore it from a backup (`quire state backup`); or move it away to start over deliberately: every webhook must then be set again.',
  },
  DATABASE_UNREACHABLE: {
    area: 'setup',
    meaning:
      'the PostgreSQL server in `QUIRE_DATABASE_URL` cannot be reached (nothing listens, unknown host, no answer in time, another service answers at that port, TLS asked of a server without it)',
    fix: 'Start the server, or correct the host and port in `QUIRE_DATABASE_URL` (and `sslmode`, if the server has no TLS).',
  },
  DATABASE_LOGIN_FAILED: {
    area: 'setup',
    meaning:
      'the PostgreSQL server refused the login in `QUIRE_DATABASE_URL` (wrong password, unknown user, not allowed from here)',
    fix: 'Correct the user and password in `QUIRE_DATABASE_URL`, or let that user connect (pg_hba.conf).',
  },
  DATABASE_NOT_FOUND: {
    area: 'setup',
    meaning: 'the database named in `QUIRE_DATABASE_URL` does not exist on the server',
    fix: 'Create it (`createdb <name>`), or correct the name in `QUIRE_DATABASE_URL`.',
  },
  KEY_STATE_UNREADABLE: {
    area: 'setup',
    meaning:
      '`keys.json` in the state dir cannot be read, parsed or written, or is behind the key generations the last build recorded',
    fix: 'Restore it from a backup; or move it aside and run `quire keys restore` (writes it from the state store\'s copy); or write the generations back as JSON (`{"<site>": <generation>}`).',
  },
  KEY_STATE_BEHIND_STORE: {
    area: 'setup',
    meaning:
      '`keys.json` in the state dir is missing, or lower than the state store for a key of a site here: it lacks a rotation, and keys rotated away would be valid again',
    fix: "Restore `keys.json` from a backup, or run `quire keys restore` to write the state store's generations into it.",
  },
  BUILD_STATE_UNREADABLE: {
    area: 'setup',
    meaning:
      'the build state (`cache/build-state.v8` in the state dir) is there but cannot be read (not permitted, not a file)',
    fix: 'Make it readable by the user running Quire, or delete it: the next build then checks and renders every article.',
  },
  MANIFEST_UNREADABLE: {
    area: 'setup',
    meaning: '`dist/manifest.json` is there but cannot be read (not permitted, not a file) or is not a manifest',
    fix: 'Make it readable by the user running Quire; a damaged one: delete it and run `quire build`.',
  },
  STATE_BACKUP_REFUSED: {
    area: 'setup',
    meaning:
      'a state backup was not made: nothing to back up, the target is there (or is not a backup), or a file could not be copied',
    fix: 'Choose another target folder, or `--force` to replace an earlier backup; the message names the file.',
  },
  SERVER_PORT_IN_USE: {
    area: 'setup',
    meaning: 'the server cannot listen: another program has its port (`PORT` on `HOST`)',
    fix: 'Stop the other program, or choose another port: `PORT=8788 quire start`, or `PORT=0` for any free port (the banner names it).',
  },
  BUILD_MISSING: {
    area: 'setup',
    meaning: 'a command that works from the current build (`quire deploy`, `quire status`) found none in the dist dir',
    fix: 'Run `quire build` (or `quire start`) first.',
  },
  DEPLOY_BUCKET_NOT_FOUND: {
    area: 'setup',
    meaning: '`quire deploy`: the bucket in `QUIRE_S3_BUCKET` does not exist at the storage service',
    fix: 'Create the bucket, or correct `QUIRE_S3_BUCKET` (and `QUIRE_S3_ENDPOINT` for a service other than AWS S3).',
  },
  DEPLOY_CREDENTIALS_MISSING: {
    area: 'setup',
    meaning:
      '`quire deploy` found no credentials for the storage service (read as the AWS SDK reads them: environment, profile, role)',
    fix: "Set `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (for R2: an R2 API token's access key ID and secret), or `AWS_PROFILE`.",
  },
  DEPLOY_ACCESS_DENIED: {
    area: 'setup',
    meaning:
      '`quire deploy`: the storage service refused the credentials or the access (401, 403: unknown key, wrong secret, no permission on the bucket)',
    fix: 'Check `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, and that the key may list, read, write and delete objects in the bucket.',
  },
  DEPLOY_STORAGE_UNREACHABLE: {
    area: 'setup',
    meaning:
      '`quire deploy`: the storage service cannot be reached (nothing listens, unknown host, TLS failed, no answer in time)',
    fix: 'Check `QUIRE_S3_ENDPOINT` (unset for AWS S3), `QUIRE_S3_REGION` and the network.',
  },
  DEPLOY_STORAGE_FAILED: {
    area: 'setup',
    meaning: '`quire deploy`: the storage service answered another error (the message has its status, code and words)',
    fix: "Read the service's message; then run `quire deploy` again: what was uploaded is not sent again, and the build served stays until the switch.",
  },
  DEPLOY_INTERRUPTED: {
    area: 'setup',
    meaning:
      '`quire deploy`: a file of `dist/` changed while it was uploaded (a build replaced `dist/` meanwhile); the pointer was not switched, the build served stays',
    fix: 'Run `quire deploy` again once the build is done: what was uploaded is not sent again.',
  },
  EXPORT_UNREADABLE: {
    area: 'setup',
    meaning:
      "an object of the export in object storage (the pointer, a build's or a site's document, a file it names) is missing or is not one this version reads (`quire deploy`; the edge Worker logs it and answers 503 `CONTENT_UNAVAILABLE`)",
    fix: 'Deploy again (`quire deploy`) with this version of Quire; a pointer a newer version wrote needs that version.',
  },
  COMMAND_LINE_INVALID: {
    area: 'setup',
    meaning:
      'a command line Quire cannot run: an unknown command, action or option, a bad or missing value, an argument too many (exit status 2)',
    fix: "Correct what the message names; `quire <command> --help` shows the command's usage.",
  },
  INSTALL_NOT_CLONABLE: {
    area: 'setup',
    meaning:
      "`quire init` (a warning; it wrote the repository): package.json installs Quire from a file outside the repository (`file:../…`), which a fresh clone, and so the workflow's `npm ci`, does not have, and init could not copy it into `vendor/` (the message says why)",
    fix: 'Copy the tarball into `vendor/` and `npm install ./vendor/quire-<version>.tgz` (or install Quire from a git URL); commit package.json, package-lock.json and `vendor/`.',
  },
  EDGE_RUNTIME_MISSING: {
    area: 'setup',
    meaning:
      '`quire edge` runs the Worker under workerd through Miniflare, which is not installed where Quire is (it is not a dependency of Quire: it brings workerd, about 150 MB)',
    fix: 'Install it in the content repository: `npm install --save-dev miniflare@4`.',
  },
  SITE_EXISTS: {
    area: 'setup',
    meaning:
      '`quire init --site <id>` in a repository whose content dir has that site already (exit status 1); nothing was written',
    fix: 'Choose another id for the new site (`content/<id>/` must not exist yet).',
  },
  SITE_UNKNOWN: {
    area: 'setup',
    meaning: 'a command named a site the content tree does not have (exit status 1)',
    fix: 'Use one of the sites the message lists: the folders of the content dir that hold a `site.yaml`.',
  },
  ARTICLE_UNKNOWN: {
    area: 'setup',
    meaning: '`quire preview` named a slug the site has no article for (drafts count)',
    fix: "Use the slug in the article's front matter, or the one made from its file name.",
  },
  PREVIEW_URL_MISSING: {
    area: 'setup',
    meaning: '`quire preview`: the site has no `previewUrl` in `site.yaml`, so there is no page to link to',
    fix: "Add `previewUrl` to `site.yaml`, a URL of the site's preview route with `{slug}` and `{token}` (the message has an example).",
  },
  BRANCH_NOT_PREVIEWED: {
    area: 'setup',
    meaning:
      '`quire preview --ref`: the server beside this command (its state dir) previews no branch of that name, or has not built it yet',
    fix: 'Start the server with `--previews <pattern>` matching the branch, push it, and wait for `Branch preview <b>: serving commit …` in its log.',
  },
  GIT_COMMAND_FAILED: {
    area: 'setup',
    meaning: "a git command Quire ran failed or timed out (the message has git's own words)",
    fix: 'Check what git says: the repository URL, credentials, the branch, disk space.',
  },
  FOLLOW_SYNC_TOO_LARGE: {
    area: 'setup',
    meaning:
      "`start --follow`: a fetch or the commit's tree is larger than `QUIRE_FOLLOW_MAX_BYTES` (nothing of it was checked out; the last good build stays served)",
    fix: 'Remove the large files from the branch, or raise `QUIRE_FOLLOW_MAX_BYTES` if the repository is really that large.',
  },
  FOLLOW_BRANCH_MISSING: {
    area: 'setup',
    meaning:
      '`start --follow`: the repository has no branch of the name `--branch` gives, or, without `--branch`, does not name a default branch Quire can follow (its HEAD names none, or it has no branches yet); the message lists its branches (20 at most)',
    fix: 'Give `--branch` one of the branches listed, or push the branch; nothing is checked out until then (the last good build stays served).',
  },
  BUILD_PUBLIC_URL_MISMATCH: {
    area: 'setup',
    meaning:
      'a running server found a build in `dist/` made for another public URL than its own (its image URLs lead there; e.g. `quire build` with another `PORT` and `QUIRE_PUBLIC_URL` unset, or another state dir): it was not served, the last good build stays; or, at start with no good build of its own, it serves one made for another URL (a warning)',
    fix: "Build with the server's public URL: the same `QUIRE_PUBLIC_URL` for both, or a build with the server's state dir and `QUIRE_PUBLIC_URL` unset (it takes the running server's); or let the server build (a push it follows, a restart).",
  },
  PUBLISH_INTERRUPTED: {
    area: 'setup',
    meaning: 'the build output changed while publishing (another build ran)',
    fix: 'Run publish again.',
  },

  // Registering a webhook.
  URL_INVALID: {
    area: 'webhook-input',
    meaning: 'the URL is not an absolute URL (a delivery also reports a URL that is not https or carries credentials)',
    fix: 'Save a valid https URL.',
  },
  URL_NOT_HTTPS: {
    area: 'webhook-input',
    meaning: 'the URL does not use https',
    fix: 'Serve the receiver over https with a certificate from a public authority.',
  },
  URL_HAS_CREDENTIALS: {
    area: 'webhook-input',
    meaning: 'the URL carries a user name or password',
    fix: 'Remove them: the receiver checks the secret instead.',
  },
  URL_HOST_NOT_PUBLIC: {
    area: 'webhook-input',
    meaning: 'the host is, or resolves to, a loopback, private or otherwise non-public address',
    fix: "Use the receiver's public host name (for local tests: `QUIRE_ALLOW_PRIVATE_TARGETS=1`).",
  },
  URL_HOST_UNRESOLVED: {
    area: 'webhook-input',
    meaning: 'the host name does not resolve',
    fix: 'Check the URL for typos and that its DNS record exists.',
  },
  SECRET_REQUIRED: {
    area: 'webhook-input',
    meaning: 'a new webhook has no secret',
    fix: 'Enter a secret or generate one.',
  },
  SECRET_TOO_SHORT: {
    area: 'webhook-input',
    meaning: 'the secret is shorter than 24 characters',
    fix: 'Generate one (`--generate-secret`).',
  },
  SECRET_TOO_LONG: {
    area: 'webhook-input',
    meaning: 'the secret is longer than 512 characters',
    fix: 'Use a shorter secret.',
  },
  SECRET_INVALID: {
    area: 'webhook-input',
    meaning: 'the secret has characters other than visible ASCII, or a `whsec_` secret carries too few bytes',
    fix: 'Generate one (`--generate-secret`).',
  },

  // What a delivery attempt came to.
  DELIVERED: {
    area: 'delivery',
    meaning: 'the receiver accepted the delivery (2xx)',
    fix: 'Nothing.',
    message: (p: {
      status: number;
      durationMs: number;
      replyUrl: string | null;
      replyId: string | null;
      note: string | null;
    }) =>
      `Success: the receiver accepted the delivery with HTTP ${p.status} in ${p.durationMs} ms.${p.replyUrl ? ` It says the article is at ${p.replyUrl}${p.replyId ? ` (id ${p.replyId})` : ''}.` : ''}${p.note ? ` Note: ${p.note}.` : ''}`,
  },
  REJECTED_SECRET: {
    area: 'delivery',
    meaning: 'the receiver answered 401 or 403: it rejected the secret or signature',
    fix: 'Give the receiver the secret saved here; compute the HMAC over the raw body, not re-serialized JSON.',
    message: (p: { status: number }) =>
      `The receiver rejected the secret or signature (HTTP ${p.status}). Make sure it uses the same secret as saved here, and computes the HMAC over the raw request body, not re-serialized JSON.`,
  },
  REDIRECT: {
    area: 'delivery',
    meaning: 'the receiver answered with a redirect (3xx), which is not followed',
    fix: 'Save the final URL as the webhook URL.',
    message: (p: { status: number; location: string | null }) =>
      `The receiver answered with a redirect (HTTP ${p.status}${p.location ? ` to ${p.location}` : ''}). Redirects are not followed and the secret is not forwarded: save the final URL as the webhook URL.`,
  },
  NOT_FOUND: {
    area: 'delivery',
    meaning: 'the receiver answered 404 or 405: no endpoint for POST at this URL',
    fix: 'Check the path of the webhook URL.',
    message: (p: { status: number }) =>
      `The receiver has no endpoint for POST at this URL (HTTP ${p.status}). Check the path.`,
  },
  GONE: {
    area: 'delivery',
    meaning: 'the receiver answered 410: the webhook was disabled',
    fix: 'Save the webhook again to re-enable it; missed events are queued again.',
    message: (_: object) =>
      'The receiver answered 410 Gone, so the webhook was disabled. Save it again to re-enable it.',
  },
  RATE_LIMITED: {
    area: 'delivery',
    meaning: 'the receiver answered 429',
    fix: 'Nothing for a queued delivery (retried after the time asked for); send a test again later.',
    message: (p: { willRetry: boolean }) =>
      `The receiver is rate-limiting (HTTP 429).${p.willRetry ? ' This delivery is retried after the time it asks for.' : notRetried('later')}`,
  },
  RECEIVER_ERROR: {
    area: 'delivery',
    meaning: 'the receiver failed with a 5xx',
    fix: "Check the receiver's logs; queued deliveries are retried with backoff.",
    message: (p: { status: number; willRetry: boolean }) =>
      `The receiver failed with HTTP ${p.status}. Check its logs.${p.willRetry ? ' This delivery is retried with backoff.' : notRetried('once the receiver is fixed')}`,
  },
  REJECTED: {
    area: 'delivery',
    meaning: 'the receiver refused the delivery with another 4xx',
    fix: "Read the receiver's answer in the delivery log.",
    message: (p: { status: number; recorded: string }) =>
      `The receiver refused the delivery with HTTP ${p.status}. ${p.recorded}`.trim(),
  },
  TARGET_NOT_PUBLIC: {
    area: 'delivery',
    meaning: 'refused before connecting: the host resolved to a non-public address',
    fix: 'Point the webhook at a receiver on a public address.',
    message: (p: { detail: string }) =>
      `Refused before connecting: ${p.detail}. Webhook receivers must be reachable on a public address.`,
  },
  DNS_FAILED: {
    area: 'delivery',
    meaning: 'the host name could not be resolved',
    fix: 'Check the URL for typos and that its DNS record exists.',
    message: (p: { detail: string }) =>
      `The host name could not be resolved (${p.detail}). Check the URL for typos and that its DNS record exists.`,
  },
  CONNECTION_REFUSED: {
    area: 'delivery',
    meaning: 'nothing listens at that host and port',
    fix: 'Check that the receiver is running.',
    message: (p: { detail: string }) =>
      `The connection was refused (${p.detail}). Nothing is listening at that host and port; check that the receiver is running.`,
  },
  CONNECTION_RESET: {
    area: 'delivery',
    meaning: 'the connection was closed before an answer',
    fix: 'Check the receiver (and any proxy before it) for crashes or limits.',
    message: (p: { detail: string }) => `The connection was closed before an answer (${p.detail}).`,
  },
  TIMEOUT: {
    area: 'delivery',
    meaning: 'no answer within `QUIRE_WEBHOOK_TIMEOUT_MS`',
    fix: 'Answer first and do slow work after answering.',
    message: (p: { detail: string }) =>
      `No answer in time (${p.detail}). The receiver must reply within the time-out; do slow work after answering.`,
  },
  TLS_FAILED: {
    area: 'delivery',
    meaning: 'the TLS handshake failed',
    fix: 'Give the receiver a valid certificate for its host name from a public authority.',
    message: (p: { detail: string }) =>
      `The TLS handshake failed (${p.detail}). The receiver needs a valid certificate for its host name from a public certificate authority.`,
  },
  NETWORK_ERROR: {
    area: 'delivery',
    meaning: 'the request failed for another network reason',
    fix: "Read the message; check the receiver's network.",
    message: (p: { detail: string }) => `The request failed: ${p.detail}.`,
  },

  // Why a delivery was not sent.
  DELIVERY_NOT_FOUND: {
    area: 'delivery-request',
    meaning: 'no delivery with that id (for that site)',
    fix: 'Take the id from `quire deliveries` or the Deliveries tab.',
  },
  NOT_PENDING: {
    area: 'delivery-request',
    meaning: 'retry asked for a delivery that is not pending',
    fix: 'Use redeliver to send a delivered or failed one again.',
  },
  STILL_PENDING: {
    area: 'delivery-request',
    meaning: 'redeliver asked for a delivery still queued',
    fix: 'Wait for its next attempt, or send it now with retry.',
  },
  SUPERSEDED: {
    area: 'delivery-request',
    meaning: 'a newer delivery of the same article exists',
    fix: 'Redeliver the newer one instead.',
  },
  NO_WEBHOOK: {
    area: 'delivery-request',
    meaning: 'the site has no webhook saved',
    fix: 'Save a URL and a secret first.',
  },
  DISABLED: {
    area: 'delivery-request',
    meaning: "the site's webhook is disabled (its receiver answered 410)",
    fix: 'Save the webhook again to resume.',
  },
  BUSY: {
    area: 'delivery-request',
    meaning: 'another delivery of the same article is in flight; this one was queued',
    fix: 'Nothing: it is sent after the other one.',
  },
  NO_ARTICLE: {
    area: 'delivery-request',
    meaning: 'Test connection found no published article to send',
    fix: 'Publish an article first.',
  },

  // Content.
  CONTENT_NO_SITES: {
    area: 'content',
    meaning:
      'no site folder with a `site.yaml` under the content dir (or it cannot be read); a command that works on sites (`quire keys`, `webhook set`) stops with it, exit status 1',
    fix: "Create `content/<site>/site.yaml`, or point `QUIRE_CONTENT_DIR` at the content tree; beside a server that follows a repository, run the command in the server's folder with its settings (its checkout is found in the state dir).",
  },
  CONTENT_SITE_CONFIG_MISSING: {
    area: 'content',
    meaning: 'a site folder has no `site.yaml`',
    fix: "Add `site.yaml` with the site's name, url and lang.",
  },
  CONTENT_SITE_ID_INVALID: {
    area: 'content',
    meaning: "a site folder's name is not a valid site id",
    fix: 'Rename it to lowercase letters, digits and dashes.',
  },
  CONTENT_AUTHOR_ID_INVALID: {
    area: 'content',
    meaning: "an author file's name is not a valid author id",
    fix: 'Rename it to lowercase letters, digits and dashes.',
  },
  CONTENT_YAML_INVALID: {
    area: 'content',
    meaning: 'YAML that does not parse',
    fix: 'Fix the syntax at the place shown.',
  },
  CONTENT_FIELD_REQUIRED: { area: 'content', meaning: 'a required field is missing', fix: 'Add the field.' },
  CONTENT_FIELD_TYPE: {
    area: 'content',
    meaning: 'a field has a value of the wrong type',
    fix: 'Write the kind of value the message names.',
  },
  CONTENT_FIELD_UNKNOWN: {
    area: 'content',
    meaning: 'a field Quire does not know (often a typo)',
    fix: 'Correct or remove it (the hint names a close match).',
  },
  CONTENT_SLUG_INVALID: {
    area: 'content',
    meaning: 'a slug that is not lowercase letters, digits and dashes',
    fix: 'Correct the slug or the file name.',
  },
  CONTENT_SLUG_DUPLICATE: {
    area: 'content',
    meaning: 'two articles of a site have the same slug',
    fix: 'Give one of them another slug.',
  },
  CONTENT_STATUS_UNKNOWN: {
    area: 'content',
    meaning: 'a `status` other than `published` or `draft`',
    fix: 'Use `published` or `draft`.',
  },
  CONTENT_KIND_UNKNOWN: {
    area: 'content',
    meaning: 'a `kind` Quire does not know',
    fix: 'Use `standard`, `programmatic`, `youtube` or `news`.',
  },
  CONTENT_LANG_INVALID: {
    area: 'content',
    meaning: 'a `lang` that is not a language tag',
    fix: 'Write a tag such as `en` or `pt-BR`.',
  },
  CONTENT_URL_INVALID: {
    area: 'content',
    meaning: 'a URL field that is not an absolute http(s) URL',
    fix: 'Write the full URL, with https://.',
  },
  CONTENT_DATE_INVALID: {
    area: 'content',
    meaning: 'a date that cannot be read',
    fix: 'Write an ISO 8601 date or date-time.',
  },
  CONTENT_EXPIRY_BEFORE_PUBLISH: {
    area: 'content',
    meaning:
      "an article's `expiresAt` is not after its `publishedAt` (from front matter or git history), so it would never be served",
    fix: 'Set `expiresAt` later than `publishedAt`, or remove it.',
  },
  CONTENT_TIMEZONE_INVALID: {
    area: 'content',
    meaning: "a site's `timezone` is not a time zone name the runtime knows",
    fix: 'Use an IANA name such as UTC, Europe/Paris or America/New_York.',
  },
  CONTENT_AUTHOR_UNKNOWN: {
    area: 'content',
    meaning: 'an article names an author with no file in `authors/`',
    fix: 'Add `authors/<id>.yaml` or correct the id.',
  },
  CONTENT_RELATED_UNKNOWN: {
    area: 'content',
    meaning: 'a related slug that is no article of the site',
    fix: 'Correct or remove the slug.',
  },
  CONTENT_RELATED_SELF: { area: 'content', meaning: 'an article lists itself as related', fix: 'Remove its own slug.' },
  CONTENT_IMAGE_MISSING: {
    area: 'content',
    meaning: "an image that is not under the site's `images/`",
    fix: 'Add the image or correct its path.',
  },
  CONTENT_IMAGE_OUTSIDE: {
    area: 'content',
    meaning: "an image path that leaves the site's `images/`",
    fix: 'Keep images under `images/` and refer to them from there.',
  },
  CONTENT_IMAGE_ALT_MISSING: {
    area: 'content',
    meaning:
      'a warning: an image in the body without alt text (`![](…)`, or an HTML `<img>` with no `alt`); screen readers and search engines have nothing to say for it',
    fix: 'Describe the image in the brackets: `![A map of the old town](../images/map.png)`. For an HTML image that is decoration only, write `alt=""`.',
  },
  CONTENT_LINK_UNKNOWN: {
    area: 'content',
    meaning:
      "a warning: a link in the body to an article of the same site that does not exist (a relative `.md` link, or a link in the form of the site's `articlePath`)",
    fix: 'Correct the link to an existing article (its file, or its slug in the `articlePath` form), or remove it.',
  },
  CONTENT_LINK_DRAFT: {
    area: 'content',
    meaning:
      'a warning: a published article links to an article of the same site that is a draft, so readers would find nothing there',
    fix: 'Publish the linked article first (or with this one), or remove the link until it is.',
  },
  CONTENT_RELATED_DRAFT: {
    area: 'content',
    meaning:
      'a warning: a published article names a draft in `related`; drafts are left out of `related` until they are published',
    fix: 'Publish the related article, or remove its slug from `related`.',
  },
  CONTENT_META_DESCRIPTION_LONG: {
    area: 'content',
    meaning:
      'a warning: a `metaDescription` longer than 160 characters, about what a search engine shows of it (Google cuts snippets at about 920 pixels, some 155–160 characters)',
    fix: 'Shorten it to 160 characters or fewer, the most important words first.',
  },
  CONTENT_ENCODING_INVALID: { area: 'content', meaning: 'a file that is not valid UTF-8', fix: 'Save it as UTF-8.' },
  CONTENT_FRONTMATTER_LANGUAGE: {
    area: 'content',
    meaning: 'front matter in a language other than YAML',
    fix: 'Write the front matter as YAML between `---` lines.',
  },
  CONTENT_FRONTMATTER_UNCLOSED: {
    area: 'content',
    meaning: 'front matter with no closing `---`',
    fix: 'Close it with a line of `---`.',
  },
  CONTENT_SYMLINK: {
    area: 'content',
    meaning: 'a symbolic link in the content tree (never followed)',
    fix: 'Replace it with the file or folder itself.',
  },
  CONTENT_GIT_REPOSITORY: {
    area: 'content',
    meaning:
      'files in the content tree that git would take for a repository (a `.git` file or folder, or `HEAD` beside `objects` or `refs`): found before git runs, which never looks there',
    fix: 'Remove them: the content tree holds articles, authors and images only; the repository is the one around it.',
  },
  CONTENT_ROOT_OUTSIDE: {
    area: 'content',
    meaning: 'the content folder is a symbolic link, or its real path leaves the repository it is in',
    fix: 'Make `content/` a real folder of the repository (or point `QUIRE_CONTENT_DIR` at the real folder); nothing outside the repository is built.',
  },
  CONTENT_UNREADABLE: {
    area: 'content',
    meaning: 'a file or folder that cannot be read',
    fix: 'Check its permissions; the message names the error.',
  },
  CONTENT_TOO_LARGE: { area: 'content', meaning: 'a file over its size limit', fix: 'Make it smaller (see Limits).' },
  CONTENT_TOO_MANY_FILES: {
    area: 'content',
    meaning: 'more files in a site than the limit',
    fix: 'Split the site, or remove files (see Limits).',
  },
  CONTENT_YAML_TOO_COMPLEX: {
    area: 'content',
    meaning: 'YAML with too many aliases or too deep nesting',
    fix: 'Write the values out plainly.',
  },
  CONTENT_TOO_DEEP: {
    area: 'content',
    meaning: 'Markdown or HTML nested deeper than the limit',
    fix: 'Flatten the nesting at the place shown.',
  },
  CONTENT_RENDER_FAILED: {
    area: 'content',
    meaning: 'the Markdown could not be rendered',
    fix: 'Simplify the document at the place shown; the message has the cause.',
  },
  CONTENT_CONTROL_CHARACTER: {
    area: 'content',
    meaning: 'a control character in a text field',
    fix: 'Remove it (the message shows it escaped).',
  },

  // verify_integration: what it was asked to check.
  SITE_NOT_BUILT: {
    area: 'verify',
    meaning: 'no site with that id in the current build',
    fix: 'Name a site of the build (`quire build` lists them).',
  },
  BASE_URL_INVALID: {
    area: 'verify',
    meaning: 'the base URL to check is not an http(s) URL',
    fix: "Give the site's address, e.g. `https://www.example.com`, or set `url` in `site.yaml`.",
  },
  SLUG_NOT_PUBLISHED: {
    area: 'verify',
    meaning: 'a slug asked for is not published on the site',
    fix: 'Name published articles only (drafts have no page to check).',
  },
  // verify_integration: page and sitemap fetching.
  FETCH_FAILED: {
    area: 'verify',
    meaning: 'a page could not be fetched (network error or an HTTP error)',
    fix: 'Check that the site answers at the base URL.',
  },
  FETCH_TIMEOUT: {
    area: 'verify',
    meaning: 'a page did not answer in time',
    fix: "Check the site's speed and availability.",
  },
  FETCH_REFUSED: {
    area: 'verify',
    meaning: "a page's host is not public, so it was not fetched",
    fix: 'Verify the public site (for local tests: `QUIRE_ALLOW_PRIVATE_TARGETS=1`).',
  },
  FETCH_BLOCKED: {
    area: 'verify',
    meaning: 'a page answered 401, 403 or 429 (a login wall or bot protection)',
    fix: "Let Quire's requests through, or verify a copy without the wall.",
  },
  FETCH_NOT_FOUND: {
    area: 'verify',
    meaning: 'a page or sitemap answered 404',
    fix: "Check the URL; see the check's fix.",
  },
  TOO_MANY_REDIRECTS: {
    area: 'verify',
    meaning: 'more than five redirects',
    fix: 'Link to the final URL; break the redirect loop.',
  },
  PAGE_NOT_FOUND: {
    area: 'verify',
    meaning: 'the article page answered 404',
    fix: 'Publish a page for every article at its URL (`articlePath` in `site.yaml`).',
  },
  PAGE_REDIRECTS: {
    area: 'verify',
    meaning: 'the article URL redirects (the canonical is the final URL)',
    fix: 'Link to the final URL, or serve the page at the article URL.',
  },
  // The check of a delivered article's live page (after each delivery), when it was not made.
  PAGE_CHECKS_DROPPED: {
    area: 'verify',
    meaning:
      'the page was not checked after its delivery: more page checks waited for the site than the cap (it is slow or does not answer), and the oldest were dropped',
    fix: "Check the site's availability and speed; `quire verify <site>` checks its articles now.",
  },
  PAGE_CHECK_FAILED: {
    area: 'verify',
    meaning: 'the page check after a delivery could not be made (an error of Quire, logged)',
    fix: 'See the log line of the check; `quire verify <site> --slug <slug>` checks the article now.',
  },
  // Sitemap.
  SITEMAP_NOT_FOUND: {
    area: 'verify',
    meaning: 'no sitemap in robots.txt or at the usual places',
    fix: 'Serve /sitemap.xml listing every article URL and name it in robots.txt.',
  },
  SITEMAP_UNREADABLE: {
    area: 'verify',
    meaning: 'a gzip-compressed sitemap that does not decompress',
    fix: 'Serve a valid sitemap (gzip or plain XML).',
  },
  SITEMAP_URL_MISSING: {
    area: 'verify',
    meaning: 'the article URL is not in the sitemap',
    fix: 'Add each article URL when its webhook arrives.',
  },
  SITEMAP_URL_MISMATCH: {
    area: 'verify',
    meaning: 'the sitemap lists a near variant of the URL (slash or scheme)',
    fix: 'List the exact page URL.',
  },
  LASTMOD_MATCHES: { area: 'verify', meaning: 'lastmod equals updatedAt (pass)', fix: 'Nothing.' },
  LASTMOD_DATE_ONLY: { area: 'verify', meaning: 'lastmod is a date that updatedAt falls on (pass)', fix: 'Nothing.' },
  LASTMOD_UNCHECKED: {
    area: 'verify',
    meaning: 'listed; the article has no updatedAt to compare (pass)',
    fix: 'Nothing.',
  },
  LASTMOD_NO_TIMEZONE: {
    area: 'verify',
    meaning: 'lastmod has no time zone (warning)',
    fix: 'Write lastmod with its offset, e.g. `2026-04-03T15:30:00Z`.',
  },
  LASTMOD_MISSING: {
    area: 'verify',
    meaning: 'the URL is listed without lastmod',
    fix: 'Write lastmod = updatedAt, refreshed on every "updated" event.',
  },
  LASTMOD_STALE: {
    area: 'verify',
    meaning: "lastmod is older than the article's update",
    fix: 'Refresh lastmod on every "updated" event.',
  },
  LASTMOD_BUILD_TIME: {
    area: 'verify',
    meaning: "lastmod is newer than the update (the sitemap's build time)",
    fix: "Write the article's updatedAt, not the time the sitemap was made.",
  },
  LASTMOD_MISMATCH: {
    area: 'verify',
    meaning: "lastmod is not the article's updatedAt",
    fix: 'Write updatedAt as lastmod.',
  },
  LASTMOD_INVALID: {
    area: 'verify',
    meaning: 'lastmod is not a W3C date or date-time',
    fix: 'Write an ISO 8601 date-time with offset.',
  },
  // Canonical link.
  CANONICAL_OK: { area: 'verify', meaning: 'one canonical link pointing at the page itself (pass)', fix: 'Nothing.' },
  CANONICAL_MISSING: {
    area: 'verify',
    meaning: 'no `<link rel="canonical">` in `<head>`',
    fix: "Add one pointing at the page's own URL.",
  },
  CANONICAL_MULTIPLE: {
    area: 'verify',
    meaning: 'more than one canonical link in `<head>`',
    fix: 'Keep a single one.',
  },
  CANONICAL_NOT_IN_HEAD: {
    area: 'verify',
    meaning: 'the canonical link ends up in `<body>` after parsing',
    fix: 'Move it up, before any element that closes `<head>`.',
  },
  CANONICAL_EMPTY: {
    area: 'verify',
    meaning: 'the canonical link has an empty href',
    fix: "Point it at the page's own URL.",
  },
  CANONICAL_INVALID: {
    area: 'verify',
    meaning: 'the canonical href is not a URL',
    fix: "Point it at the page's own URL.",
  },
  CANONICAL_CONFLICT: {
    area: 'verify',
    meaning: 'the Link header and the `<link>` element disagree',
    fix: 'Send one canonical URL.',
  },
  CANONICAL_MISMATCH: {
    area: 'verify',
    meaning: 'the canonical points elsewhere',
    fix: "Point it at the page's own URL.",
  },
  // Article HTML.
  HTML_VERBATIM: { area: 'verify', meaning: 'the article html is in the page exactly as sent (pass)', fix: 'Nothing.' },
  HTML_EQUIVALENT: {
    area: 'verify',
    meaning: 'the article html is in the page, equal after parsing (pass)',
    fix: 'Nothing.',
  },
  HTML_EMPTY: { area: 'verify', meaning: 'the article has no html to look for (skipped)', fix: 'Nothing.' },
  HTML_WHITESPACE_ONLY: {
    area: 'verify',
    meaning: 'whitespace in the article html changed (warning)',
    fix: 'Inject `html` as received.',
  },
  HTML_ATTRIBUTE_ORDER: {
    area: 'verify',
    meaning: 'attributes in a different order (warning)',
    fix: 'Inject `html` as received.',
  },
  HTML_MISSING: { area: 'verify', meaning: 'the article text is not on the page', fix: 'Inject `html` as received.' },
  HTML_ONLY_IN_SCRIPT: {
    area: 'verify',
    meaning: 'the article html is only inside a script (hydration data)',
    fix: "Render it into the page's markup on the server.",
  },
  HTML_ESCAPED: {
    area: 'verify',
    meaning: 'the article html is shown as text',
    fix: 'Insert it as HTML, not as text.',
  },
  HTML_RERENDERED: {
    area: 'verify',
    meaning: 'the text is there, the markup differs (re-rendered or re-sanitized)',
    fix: 'Inject `html` as received, without processing it.',
  },
  HTML_MODIFIED: {
    area: 'verify',
    meaning: 'the article html was changed',
    fix: 'Inject `html` as received, without processing it.',
  },
  // Byline.
  BYLINE_OK: {
    area: 'verify',
    meaning: 'the byline shows the author (linked when they have a url) (pass)',
    fix: 'Nothing.',
  },
  NO_AUTHOR: { area: 'verify', meaning: 'the article has no author (skipped)', fix: 'Nothing.' },
  BYLINE_MISSING: {
    area: 'verify',
    meaning: "the author's name is not on the page",
    fix: 'Fetch the author from `GET /v1/articles/{slug}` and render "By <name>".',
  },
  BYLINE_NOT_VISIBLE: {
    area: 'verify',
    meaning: 'the name is only where readers cannot see it',
    fix: 'Show a visible byline.',
  },
  BYLINE_NOT_LINKED: {
    area: 'verify',
    meaning: "the name is not linked to the author's url",
    fix: "Link the name to the author object's `url`.",
  },
  BYLINE_LINK_MISMATCH: {
    area: 'verify',
    meaning: "the name links elsewhere than the author's url",
    fix: "Link the name to the author object's `url`.",
  },

  // `quire conformance`: what a receiver did with the test deliveries (a delivery it did not
  // accept is told with the codes of "What a delivery came to", its live page with verify's).
  REDELIVERY_REFUSED: {
    area: 'conformance',
    meaning: 'the same delivery sent again (as a retry sends it) was not answered 2xx',
    fix: 'Answer every delivery of an article you already have with 2xx and upsert it by `article.id`: Quire retries until it gets a 2xx.',
  },
  DUPLICATED: {
    area: 'conformance',
    meaning: 'after the same delivery was sent again, the sitemap lists the test article more than once',
    fix: 'Upsert by `article.id`: a delivery sent again must update the entry it made, not add another.',
  },
  UPDATE_NOT_SHOWN: {
    area: 'conformance',
    meaning: 'the page does not show what an accepted `updated` event sent',
    fix: "Replace the stored article on `updated` (by `article.id`) and render the new `html`; expire the page's cache.",
  },
  OUT_OF_DATE_APPLIED: {
    area: 'conformance',
    meaning: 'an older delivery that arrived after a newer one replaced the newer content',
    fix: 'Keep, per `article.id`, the `webhook-timestamp` of the delivery applied, and answer 2xx without applying one with an older timestamp (or drop a `webhook-id` already applied).',
  },
  FORGED_ACCEPTED: {
    area: 'conformance',
    meaning: 'a request with neither the right Bearer token nor a right signature was accepted, or applied',
    fix: 'Verify every request before using it and answer 401 when verification fails (`verifyWebhook` from `quire/receiver`).',
  },
  FORGED_NOT_401: {
    area: 'conformance',
    meaning: 'a request with neither the right Bearer token nor a right signature was refused, but not with 401',
    fix: 'Answer 401 when verification fails, as the webhook contract says.',
  },
  SIGNATURE_NOT_CHECKED: {
    area: 'conformance',
    meaning: 'the right Bearer token is enough, whatever the signature (warning): the body could be altered unnoticed',
    fix: 'Verify the signature over the raw body (`verifyWebhook` from `quire/receiver`), not only the Bearer token.',
  },
  RAW_BODY_REFUSED: {
    area: 'conformance',
    meaning:
      'a correctly signed body with other spacing and key order was refused (JSON serialized again before verifying)',
    fix: 'Verify the bytes as received: read the raw body first, then parse the JSON (see "The raw-body pitfall").',
  },
  RAW_BODY_ALTERED_ACCEPTED: {
    area: 'conformance',
    meaning:
      'a body spaced differently, under the signature of the original bytes, was accepted (JSON serialized again before verifying)',
    fix: 'Verify the bytes as received: read the raw body first, then parse the JSON (see "The raw-body pitfall").',
  },
  NOT_OBSERVABLE: {
    area: 'conformance',
    meaning:
      'what the receiver stored could not be seen (warning): no page for the test article, or no sitemap listing it',
    fix: 'Reply `{url, id}` with where the article is, serve its page there and list it in the sitemap.',
  },
  NOT_CHECKED: {
    area: 'conformance',
    meaning: 'the rule could not be run (warning): a step it depends on failed or got no answer',
    fix: 'Fix the rule that failed first, then run the check again.',
  },
} as const satisfies Record<string, CodeEntry>;

export type ProblemCode = keyof typeof CATALOGUE;

/** The codes of one area, as a type: `CodeIn<'api'>` is what an API error may carry. */
export type CodeIn<A extends ProblemArea> = {
  [K in ProblemCode]: (typeof CATALOGUE)[K]['area'] extends A ? K : never;
}[ProblemCode];

/** The codes of one area in catalogue order (the docs' tables and the OpenAPI enum use it). */
export function codesIn<A extends ProblemArea>(area: A): CodeIn<A>[] {
  return (Object.keys(CATALOGUE) as ProblemCode[]).filter((code) => CATALOGUE[code].area === area) as CodeIn<A>[];
}

export const isProblemCode = (code: string): code is ProblemCode => Object.hasOwn(CATALOGUE, code);
