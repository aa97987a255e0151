/** What the platform knows locates or unlocks an upstream: its configured host names and keys. */
export interface KnownSecrets {
  /** Host names (or IPs) of the configured servers, e.g. from their base URLs. */
  hosts?: ReadonlyArray<string | undefined>;
  /** API keys and passwords sent to the servers. */
  secrets?: ReadonlyArray<string | undefined>;
}

/** The longest upstream message passed on, after scrubbing. */
export const MAX_UPSTREAM_MESSAGE = 300;

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*[^\s"'<>.,;:!?)\]}]/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const KEY_LIKE = /\b(?:sk|pk|rk|hf|gsk|xai)[-_][A-Za-z0-9_-]{8,}\b/g;
const IPV6_BRACKETED = /\[[0-9a-f]*:[0-9a-f:.%]*\](?::\d{1,5})?/gi;
const IPV6 = /(?<![\w:.])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?:%\w+)?(?![\w:])/gi;
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g;
/** `name:port` where the name has a dot or a hyphen (so `width:64` is left alone), or is localhost. */
const HOST_PORT = /\b(?:[a-z0-9-]+(?:\.[a-z0-9-]+)+|[a-z0-9]+(?:-[a-z0-9]+)+|localhost):\d{2,5}\b/gi;
const LOCALHOST = /\blocalhost\b/gi;
/** Dotted names under a public or a common private suffix; `model.safetensors` or `config.json` are not host names. */
const DOMAIN =
  /\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|ai|dev|cloud|co|info|biz|xyz|tech|us|uk|de|fr|eu|nl|cn|jp|ru|internal|local|localdomain|lan|home|corp|intranet|private|svc|cluster|example|test|invalid|arpa)(?![\w-])/gi;

/**
 * The one scrubber for upstream text that may reach a caller (libs/upstream/README.md): URLs
 * become `[url]`; IP addresses, `host:port` pairs and `localhost` become `[address]`; the
 * configured servers' host names and dotted host names become `[server]`; the configured keys,
 * bearer/basic credentials and key-like tokens (`sk-...`) become `[key]`. The result is cut to
 * 300 characters.
 */
export function scrubUpstreamMessage(message: string, known: KnownSecrets = {}): string {
  let out = message.slice(0, 4 * MAX_UPSTREAM_MESSAGE);
  for (const secret of known.secrets ?? []) if (secret && secret.length >= 4) out = out.split(secret).join('[key]');
  out = out
    .replace(BEARER, '$1 [key]')
    .replace(KEY_LIKE, '[key]')
    .replace(URL_PATTERN, '[url]')
    .replace(IPV6_BRACKETED, '[address]')
    .replace(IPV6, (m) => ((m.includes('::') || m.split(':').length === 8) && /[0-9a-f]/i.test(m) ? '[address]' : m))
    .replace(IPV4, '[address]')
    .replace(HOST_PORT, '[address]')
    .replace(LOCALHOST, '[address]');
  const hosts = [...new Set((known.hosts ?? []).filter((h): h is string => !!h && h.length >= 2))].sort((a, b) => b.length - a.length);
  for (const host of hosts) out = out.replace(new RegExp(`(?<![\\w.-])${escape(host)}(?![\\w-])`, 'gi'), '[server]');
  return out.replace(DOMAIN, '[server]').slice(0, MAX_UPSTREAM_MESSAGE).trim();
}

/** Host names of base URLs, for `KnownSecrets.hosts`; malformed ones are skipped. */
export function hostsOf(baseUrls: ReadonlyArray<string | undefined>): string[] {
  const hosts: string[] = [];
  for (const base of baseUrls) {
    if (!base) continue;
    try {
      hosts.push(new URL(base).hostname.replace(/^\[|\]$/g, ''));
    } catch {
      /* not a URL: nothing to learn */
    }
  }
  return hosts;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
