// What one SafeClient's requests are for: which schemes they may use, and how a refusal names
// them. Webhooks go to https only; a site being verified may be plain http (a local or staging
// site). The address rules are the same for both: only public hosts, unless allowPrivate.
export interface TargetPolicy {
  protocols: readonly ('https:' | 'http:')[];
  /** The URLs, in refusals: "webhook URLs must use https". */
  urls: string;
  /** Ends every non-public refusal: "…; webhook targets must be public". */
  mustBePublic: string;
  /** Why credentials in the URL are refused. */
  noCredentials: string;
}

export const WEBHOOK_TARGETS: TargetPolicy = {
  protocols: ['https:'],
  urls: 'webhook URLs',
  mustBePublic: 'webhook targets must be public',
  noCredentials: 'the webhook secret authenticates each request',
};

export const VERIFIED_SITE: TargetPolicy = {
  protocols: ['https:', 'http:'],
  urls: 'URLs of the site being verified',
  mustBePublic:
    'the site being verified must be on a public host (QUIRE_ALLOW_PRIVATE_TARGETS=1 allows a local one, for development)',
  noCredentials: 'the checks read public pages only',
};
