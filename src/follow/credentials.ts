// Credentials of a followed https repository, handed to git so that no other local user can read
// them: a command line is public (`ps`, /proc/<pid>/cmdline), a process's environment is readable
// only by its own user. So the URL git is given carries none; git's configuration, passed in the
// environment (GIT_CONFIG_COUNT…), names a credential helper, a fixed shell snippet, that answers
// from two environment variables, and only for the URL's own host (a redirect elsewhere gets nothing).
import type { FollowCredentials } from './follow-source.ts';

const HELPER = [
  '!f() {',
  'test "$1" = get || exit 0;',
  'host=;',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell, expanded by the shell git starts
  'while IFS= read -r line && test -n "$line"; do case "$line" in host=*) host=${line#host=};; esac; done;',
  'test "$host" = "$QUIRE_FOLLOW_GIT_HOST" || exit 0;',
  'printf "username=%s\\npassword=%s\\n" "$QUIRE_FOLLOW_GIT_USERNAME" "$QUIRE_FOLLOW_GIT_PASSWORD";',
  '}; f',
].join(' ');

/** The environment that gives git `credentials` (merged over the runner's own); empty without any. */
export function credentialEnvironment(credentials: FollowCredentials | null): Record<string, string> {
  if (!credentials) return {};
  return {
    GIT_CONFIG_COUNT: '2',
    // An empty helper first: the user's own helpers are not asked (nor told) about this host.
    GIT_CONFIG_KEY_0: 'credential.helper',
    GIT_CONFIG_VALUE_0: '',
    GIT_CONFIG_KEY_1: 'credential.helper',
    GIT_CONFIG_VALUE_1: HELPER,
    QUIRE_FOLLOW_GIT_HOST: credentials.host,
    QUIRE_FOLLOW_GIT_USERNAME: credentials.username,
    QUIRE_FOLLOW_GIT_PASSWORD: credentials.password,
  };
}
