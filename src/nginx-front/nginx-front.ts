// The production front: nginx serving a build's site/ directly and passing only the dynamic paths to the shims.
// The build renders the parts that belong to its output (http.conf: media types and request classification;
// server.conf: root and locations) with renderFrontParts; renderNginxConf wraps them for one deployment
// (listen address, shim addresses, prefix). Static answers carry the same status, media type, body and headers
// as the shim's static handler gives; anything the front cannot answer exactly goes to the shim: requests that
// are not GET/HEAD, a bad API-Version, an Accept that may pick a non-default representation, and every path
// that is no file (so the shim's 404, JSON or the HTML page by Accept, stays the one answer).
import { basename, dirname } from 'node:path';
import { API_VERSION } from '../domain/brand.ts';
import { apiCatalogLink, discoveryLinks, ENTRY_PATHS, LINKED_PATHS_WITHOUT_SLASH } from '../domain/contract/discovery-links.ts';
import { CORS_EXPOSED_HEADERS, PAGE_SECURITY_HEADERS, REQUEST_ID_PATTERN } from '../domain/contract/response-headers.ts';
import { LISTING_PAGE_PATH, LISTING_PAGE_VARY } from '../domain/site-paths.ts';
import { OPERATIONS, type Operation } from '../domain/contract/operations.ts';
import {
  CACHE_CONTROL,
  CONTENT_TYPES,
  DEFAULT_CONTENT_TYPE,
  IMMUTABLE_PREFIX,
  SERVER_MANIFESTS,
  requestPathsOf,
  type ContentTypesManifest,
  type HeadersManifest,
  type NegotiationManifest,
} from '../domain/contract/static-serving.ts';

export const UPSTREAM_NAME = 'catalog_shims';
/** Where Debian's libnginx-mod-http-brotli-static puts the module that serves the .br files. */
export const DEBIAN_BROTLI_STATIC_MODULE = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';

/**
 * Headers the shim sets on every answer (server/app.ts); the front sets them on the files it serves itself.
 * Kept equal to the shim's by test/front/front.test.ts, which compares every header of both answers.
 */
export const SHIM_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'API-Version': API_VERSION,
  // Files are public reads: the open CORS family.
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS,
  ...PAGE_SECURITY_HEADERS,
};

/**
 * Per-request headers the shim sets, given by nginx variables (http.conf): the request id ($catalog_request_id) and
 * the build the files come from ($catalog_build; the build's own locations write it out as text instead).
 */
const VARIABLE_HEADERS: Readonly<Record<string, string>> = {
  'X-Request-Id': '$catalog_request_id',
  'Catalog-Build': '$catalog_build',
  // Empty (so not sent) except on pages and the API root (discoveryLinkKind).
  Link: '$catalog_link',
};

export interface SiteManifests {
  contentTypes: ContentTypesManifest;
  negotiation: NegotiationManifest;
  headers: HeadersManifest;
}

/** Paths the shim answers GET on (a handler, not a file): exact paths, and prefixes for paths with parameters. */
export function dynamicGetPaths(operations: readonly Operation[] = OPERATIONS): { exact: string[]; prefixes: string[] } {
  const exact = new Set<string>();
  const prefixes = new Set<string>();
  for (const op of operations) {
    if (op.servedBy !== 'route' || op.method !== 'GET') continue;
    for (const path of op.paths) {
      const brace = path.indexOf('{');
      if (brace < 0) exact.add(path);
      // A parameter may hold encoded slashes (path-style ids): everything under the prefix is the shim's.
      else prefixes.add(path.slice(0, brace));
    }
  }
  return { exact: [...exact].sort(), prefixes: [...prefixes].sort() };
}

/** An nginx string literal: double-quoted, with quotes, backslashes and variables escaped. */
export function nginxString(value: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`a header value may not hold a line break: ${JSON.stringify(value)}`);
  return `"${value.replace(/[\\"$]/g, (c) => (c === '$' ? '${dollar}' : `\\${c}`))}"`;
}

/** A regular expression for a location or map: quoted, so nginx reads none of it as syntax. */
function nginxRegex(pattern: RegExp): string {
  if (/["\r\n]/.test(pattern.source) || pattern.flags !== '') throw new Error(`not an nginx regex: ${String(pattern)}`);
  return `"${pattern.source}"`;
}

/** A literal path inside a regular expression. */
function regexText(path: string): string {
  return path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A location's path, quoted when it holds anything nginx would read as syntax. */
function locationPath(path: string): string {
  return /^[A-Za-z0-9_./~-]+$/.test(path) ? path : nginxString(path);
}

/** The add_header lines of a location; with the build id known, Catalog-Build as text (a variable costs per answer). */
function headerLines(headers: Record<string, string>, indent: string, buildId?: string): string {
  const variables = buildId === undefined ? VARIABLE_HEADERS : { ...VARIABLE_HEADERS, 'Catalog-Build': nginxString(buildId) };
  return [
    ...Object.entries(headers).map(([name, value]) => `${indent}add_header ${name} ${nginxString(value)};`),
    ...Object.entries(variables).map(([name, variable]) => `${indent}add_header ${name} ${variable};`),
  ].join('\n');
}

const STATIC_GATE = `    error_page 418 = @shim;
    if ($catalog_to_shim) { return 418; }`;
const TRY_FILES = '    try_files $catalog_try_1 $catalog_try_2 $catalog_try_3 @shim;';

function staticLocation(
  match: string,
  buildId: string,
  options: {
    cacheControl: string;
    vary: string;
    extraHeaders?: Record<string, string>;
    type?: string;
    negotiated?: boolean;
    markdownToShim?: boolean;
    tryFiles?: string;
  },
): string {
  const lines = [`  location ${match} {`, STATIC_GATE];
  // A request that may prefer another representation is negotiated by the shim (RFC 9110 q-values and all).
  if (options.negotiated) lines.push('    if ($catalog_accept_default = 0) { return 418; }');
  if (options.markdownToShim) lines.push('    if ($catalog_accept_markdown) { return 418; }');
  if (options.type) lines.push(`    types { }\n    default_type ${nginxString(options.type)};`);
  lines.push(options.tryFiles ?? TRY_FILES);
  lines.push(headerLines({ ...SHIM_RESPONSE_HEADERS, Vary: options.vary, ...options.extraHeaders, 'Cache-Control': options.cacheControl }, '    ', buildId));
  lines.push('  }');
  return lines.join('\n');
}

/** http-level part: the media types of the site's files and the request classification the locations use. */
export function renderHttpConf(baseUrl: string, buildId: string): string {
  const byType = new Map<string, string[]>();
  for (const [ext, type] of Object.entries(CONTENT_TYPES)) byType.set(type, [...(byType.get(type) ?? []), ext.slice(1)]);
  const types = [...byType].map(([type, exts]) => `    ${nginxString(type)} ${exts.join(' ')};`).join('\n');
  return `# Generated by the catalog build: media types and request classification of the front (include at http level).
types {
${types}
}
default_type ${DEFAULT_CONTENT_TYPE};
charset off;
# A literal dollar sign for header values (nginx has no escape for it).
geo $dollar {
    default "$";
}

# X-Request-Id of the files the front answers: the caller's when it is a sane token, as the shim keeps it
# (src/domain/contract/response-headers.ts), else one made of the time, the worker and the connection's serial and request
# count: unique per host. Not $request_id: its 16 random bytes took OpenSSL a getpid() system call each, 1 to 2.5 µs
# of the ~15 µs nginx spent on a listing page (measured on this project's 100k build).
# Exact keys are looked up in a hash before any regex runs: the common cases below (no header, no Accept, GET
# without API-Version) cost no regex.
map $http_x_request_id $catalog_request_id {
    "" $msec-$pid-$connection-$connection_requests;
    "~${REQUEST_ID_PATTERN.source}" $http_x_request_id;
    default $msec-$pid-$connection-$connection_requests;
}

# An Accept that names Markdown: on a listing page the shim chooses between HTML and Markdown (it answers Markdown
# only to an Accept naming it), so those requests go to the shim and every other gets the HTML file.
map $http_accept $catalog_accept_markdown {
    "" 0;
    "*/*" 0;
    "~*markdown" 1;
    default 0;
}

# Requests the front does not answer from files: other methods than GET/HEAD, and an API-Version the shim refuses.
map $request_method $catalog_method_static {
    GET 1;
    HEAD 1;
    default 0;
}
map "$catalog_method_static:$http_api_version" $catalog_to_shim {
    "1:" 0;
    "1:${API_VERSION}" 0;
    "~^1:\\s*${API_VERSION}?\\s*$" 0;
    default 1;
}
# Accept headers under which every negotiated file's default representation is the shim's answer too.
map $http_accept $catalog_accept_default {
    "" 1;
    "*/*" 1;
    default 0;
}
# The discovery Link header (src/domain/contract/discovery-links.ts): every link on the entry points (2), the API catalog
# on every other page (1); $request_uri, since try_files rewrites $uri to the file. Exact keys first (a hash), then
# the first matching regex: "/?…" before the pages (every path ending in a slash), a page in one regex.
map $request_uri $catalog_link_page {
${ENTRY_PATHS.map((path) => `    ${nginxString(path)} 2;`).join('\n')}
${LINKED_PATHS_WITHOUT_SLASH.map((path) => `    ${nginxString(path)} 1;`).join('\n')}
    "~^\\/\\?" 2;
    "~^[^?]*/(\\?|$)" 1;
    "~^(${ENTRY_PATHS.filter((path) => path !== '/')
      .map(regexText)
      .join('|')})\\?" 2;
    "~^(${LINKED_PATHS_WITHOUT_SLASH.map(regexText).join('|')})\\?" 1;
    default 0;
}
# The build the files come from, for the answers of the main configuration (the build's locations write it out).
map $host $catalog_build {
    default ${nginxString(buildId)};
}
# The Link value itself, looked up only when a file's answer sends it: requests passed to the shims never pay for
# the regexes above.
map $catalog_link_page $catalog_link {
    1 ${nginxString(apiCatalogLink(baseUrl))};
    2 ${nginxString(discoveryLinks(baseUrl))};
    default "";
}
# The shim's file resolution: path, path/index.html, path.html; a path ending in / as a directory index, then as
# path.html (a listing's or an owner's page is one file: listings/<slug>.html answers /listings/<slug>/).
map $uri $catalog_try_1 {
    "~/$" "\${uri}index.html";
    default $uri;
}
map $uri $catalog_try_2 {
    "~/$" "\${uri}index.html";
    default $uri/index.html;
}
map $uri $catalog_try_3 {
    "~^(.+)/$" "$1.html";
    "~/$" "\${uri}index.html";
    default $uri.html;
}
`;
}

/** server-level part: the build's root, the shim's GET routes, and the files with their own type or headers. */
export function renderServerConf(siteRoot: string, manifests: SiteManifests): string {
  const { exact, prefixes } = dynamicGetPaths();
  const routed = new Set(exact);
  // The build directory's name is the build id the shim reports in Catalog-Build.
  const buildId = basename(dirname(siteRoot));
  const out: string[] = [
    `# Generated by the catalog build for ${siteRoot} (include inside the front's server block).`,
    `root ${nginxString(siteRoot)};`,
    '',
    '  # Everything that is not a file, and every request the front does not answer itself: the shims.',
    `  location @shim {\n    proxy_pass http://${UPSTREAM_NAME};\n  }`,
    '',
    '  # GET routes of the shim (src/domain/contract/operations.ts, servedBy: route).',
  ];
  for (const path of exact) out.push(`  location = ${locationPath(path)} {\n    proxy_pass http://${UPSTREAM_NAME};\n  }`);
  for (const prefix of prefixes) out.push(`  location ^~ ${locationPath(prefix)} {\n    proxy_pass http://${UPSTREAM_NAME};\n  }`);
  out.push('', "  # The build's instructions to the servers are not part of the site: the shim answers 404.");
  for (const name of [...SERVER_MANIFESTS].sort()) out.push(`  location = /${name} {\n    proxy_pass http://${UPSTREAM_NAME};\n  }`);

  out.push('', '  # Files served with a media type, representations or headers of their own.');
  const special = new Set([...Object.keys(manifests.contentTypes), ...Object.keys(manifests.negotiation), ...Object.keys(manifests.headers)]);
  for (const sitePath of [...special].sort()) {
    const variants = manifests.negotiation[sitePath];
    const type = variants?.[0]?.type ?? manifests.contentTypes[sitePath];
    for (const requestPath of requestPathsOf(sitePath)) {
      if (routed.has(requestPath)) continue;
      out.push(
        staticLocation(`= ${locationPath(requestPath)}`, buildId, {
          cacheControl: requestPath.startsWith(IMMUTABLE_PREFIX) ? CACHE_CONTROL.immutable : CACHE_CONTROL.revalidate,
          vary: variants ? 'Accept, Accept-Encoding' : 'Accept-Encoding',
          extraHeaders: manifests.headers[sitePath],
          type,
          negotiated: variants !== undefined && variants.length > 1,
        }),
      );
    }
  }
  out.push('', '  # Build assets: content-hashed names, cached for a year.');
  out.push(staticLocation(`^~ ${IMMUTABLE_PREFIX}`, buildId, { cacheControl: CACHE_CONTROL.immutable, vary: 'Accept-Encoding' }));
  out.push('', '  # Listing pages: the HTML file, or for an Accept naming Markdown the shim, which negotiates it.');
  out.push(
    staticLocation(`~ ${nginxRegex(LISTING_PAGE_PATH)}`, buildId, {
      cacheControl: CACHE_CONTROL.revalidate,
      vary: LISTING_PAGE_VARY,
      markdownToShim: true,
      // A listing's page is one file, listings/<slug>.html, with or without the slash: the third map alone (one regex
      // per page, not three).
      tryFiles: '    try_files $catalog_try_3 @shim;',
    }),
  );
  out.push('', "  # Every other file of the site, by the shim's resolution; no file: the shim.");
  out.push(staticLocation('/', buildId, { cacheControl: CACHE_CONTROL.revalidate, vary: 'Accept-Encoding' }));
  return out.join('\n') + '\n';
}

export interface FrontDeployment {
  /** nginx's prefix: pid file, logs and temp directories live under it. */
  prefix: string;
  listen: string;
  /** host:port of each shim. */
  upstreams: string[];
  /** The build's http.conf and server.conf (or a path through <data>/current, so a reload follows rebuilds). */
  httpConf: string;
  serverConf: string;
  /** The brotli static module to load, when installed (else .br files are not used and gzip serves). */
  brotliModule?: string | undefined;
  /** `user` of the worker processes; only meaningful when nginx is started as root. */
  user?: string | undefined;
  workerProcesses?: number | 'auto';
}

/** A complete nginx.conf for one deployment of the front. */
export function renderNginxConf(d: FrontDeployment): string {
  const lines = ['# Generated by catalog: the front (nginx) of one deployment. See docs/operations.md (Deployment).'];
  if (d.brotliModule) lines.push(`load_module ${d.brotliModule};`);
  if (d.user) lines.push(`user ${d.user};`);
  // The maps and the listing-page location are regexes matched on every file answered: compiled to machine code
  // (Debian's nginx is built with PCRE JIT; bench/records/2026-11-24-front-nginx.md).
  lines.push('pcre_jit on;');
  lines.push(`worker_processes ${d.workerProcesses ?? 'auto'};
pid ${d.prefix}/nginx.pid;
error_log ${d.prefix}/logs/error.log warn;

events {
    worker_connections 4096;
}

http {
    include ${d.httpConf};

    access_log off;
    server_tokens off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 100000;

    # Precompressed siblings written by the build; nothing is compressed on the fly.
    gzip off;
    gzip_static on;
    gzip_vary off;
${d.brotliModule ? '    brotli_static on;\n' : ''}    etag on;
    open_file_cache max=20000 inactive=60s;
    open_file_cache_valid 30s;
    open_file_cache_errors on;

    client_body_temp_path ${d.prefix}/tmp/body;
    proxy_temp_path ${d.prefix}/tmp/proxy;
    fastcgi_temp_path ${d.prefix}/tmp/fastcgi;
    uwsgi_temp_path ${d.prefix}/tmp/uwsgi;
    scgi_temp_path ${d.prefix}/tmp/scgi;
    # The shim enforces its own body limits with its own errors.
    client_max_body_size 10m;

    upstream ${UPSTREAM_NAME} {
${d.upstreams.map((u) => `        server ${u};`).join('\n')}
        keepalive 64;
    }

    # The shims see the client as the last X-Forwarded-For entry: run them with TRUST_PROXY=1 (one hop; 2 with a
    # CDN in front of this nginx that appends the client it saw).
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto $scheme;
    proxy_pass_request_headers on;
    # Event streams (MCP SSE, /ask) pass unbuffered: the shim sends X-Accel-Buffering: no, passed on for a proxy
    # further out (a CDN or another nginx).
    proxy_pass_header X-Accel-Buffering;
    proxy_read_timeout 300s;
    proxy_next_upstream error timeout;

    server {
        listen ${d.listen};
        server_name _;
        recursive_error_pages on;
        error_page 502 503 504 = @shims_unavailable;
        location @shims_unavailable {
            default_type "application/json; charset=utf-8";
${headerLines({ ...SHIM_RESPONSE_HEADERS, 'Retry-After': '5' }, '            ').replace(/;$/gm, ' always;')}
            return 503 ${nginxString(JSON.stringify({ code: 'service_unavailable', message: 'No catalog shim is answering.', resolution: 'The catalog is starting or rebuilding; retry in a few seconds.' }))};
        }
        include ${d.serverConf};
    }
}
`);
  return lines.join('\n');
}
