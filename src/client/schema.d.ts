/**
 * The service's API as TypeScript types, generated from its OpenAPI document by
 * openapi-typescript (npm run client:generate). Do not edit: a test fails when this
 * file differs from what the service documents.
 */
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database answers and takes writes */
        get: operations["getHealthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's token name and scope (without a token: whether one is required) */
        get: operations["getSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List providers (a bare array, as the original service answered; X-Total-Count is how many there are in all) */
        get: operations["getProviders"];
        put?: never;
        /** Create a provider */
        post: operations["postProviders"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/providers/{provider_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a provider */
        get: operations["getProvidersProviderId"];
        /** Update a provider */
        put: operations["putProvidersProviderId"];
        post?: never;
        /** Delete a provider and its memberships */
        delete: operations["deleteProvidersProviderId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/providers/{provider_id}/rate_limit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a provider's rate limit */
        delete: operations["deleteProvidersProviderIdRateLimit"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List pools with their status (every pool by default; limit and offset page by pool_id; fields=summary leaves out members, policy and history) */
        get: operations["getPools"];
        put?: never;
        /** Create a pool */
        post: operations["postPools"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a pool status record */
        get: operations["getPoolsPoolId"];
        /** Update a pool */
        put: operations["putPoolsPoolId"];
        post?: never;
        /** Delete a pool with its members and history */
        delete: operations["deletePoolsPoolId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a provider to a pool */
        post: operations["postPoolsPoolIdMembers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/members/{provider_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Update a pool member */
        put: operations["putPoolsPoolIdMembersProviderId"];
        post?: never;
        /** Remove a provider from a pool */
        delete: operations["deletePoolsPoolIdMembersProviderId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A pool's rotations, failovers and members' mean latency per minute, oldest minute first */
        get: operations["getPoolsPoolIdActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every pool's rotations and failovers per minute, oldest minute first */
        get: operations["getActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the pool to its next available provider
         * @description The body is optional: `curl -X POST …/rotate` rotates with reason `manual`.
         */
        post: operations["postPoolsPoolIdRotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/failover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fail over from a failed provider to another
         * @description 404 `Member not found in pool <pool_id>` when `failed_provider_id` is not a member of the pool (nothing is written); 404 `No alternative providers available in pool <pool_id>` when no other member is available (the failure and a failed history record are kept).
         */
        post: operations["postPoolsPoolIdFailover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Rotation history, newest first */
        get: operations["getPoolsPoolIdHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Report the outcome of a call to a member provider */
        post: operations["postPoolsPoolIdReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/next": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Which provider the next rotation would choose, and why every member is or is not eligible */
        get: operations["getPoolsPoolIdNext"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/cache": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Empty the pool's response cache */
        delete: operations["deletePoolsPoolIdCache"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pools/{pool_id}/proxy/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Forward a request to a provider of the pool, failing over within the request */
        get: operations["getPoolsPoolIdProxy"];
        /** Forward a request to a provider of the pool, failing over within the request */
        put: operations["putPoolsPoolIdProxy"];
        /** Forward a request to a provider of the pool, failing over within the request */
        post: operations["postPoolsPoolIdProxy"];
        /** Forward a request to a provider of the pool, failing over within the request */
        delete: operations["deletePoolsPoolIdProxy"];
        /** Forward a request to a provider of the pool, failing over within the request */
        options: operations["optionsPoolsPoolIdProxy"];
        /** Forward a request to a provider of the pool, failing over within the request */
        head: operations["headPoolsPoolIdProxy"];
        /** Forward a request to a provider of the pool, failing over within the request */
        patch: operations["patchPoolsPoolIdProxy"];
        /** Forward a request to a provider of the pool, failing over within the request */
        trace: operations["tracePoolsPoolIdProxy"];
    };
    "/p/{pool_name}/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Forward a request to a provider of the pool named in the path (as /api/pools/{pool_id}/proxy/…) */
        get: operations["getPPoolName"];
        /** Forward a request to a provider of the pool named in the path (as /api/pools/{pool_id}/proxy/…) */
        put: operations["putPPoolName"];
        /** Forward a request to a provider of the pool named in the path (as /api/pools/{pool_id}/proxy/…) */
        post: operations["postPPoolName"];
        /** Forward a request to a provider of the pool named in the path (as /api/pools/{pool_id}/proxy/…) */
        delete: operations["deletePPoolName"];
        /** Forward a request to a provider of the pool named in the path (as /api/pools/{pool_id}/proxy/…) */
        options: operations["optionsPPoolName"];
        /** Forward a request to a provider of the pool named in the path (as /api/pools/{pool_id}/proxy/…) */
        head: operations["headPPoolName"];
        /** Forward a request to a provider of the pool named in the path (as /api/pools/{pool_id}/proxy/…) */
        patch: operations["patchPPoolName"];
        /** Forward a request to a provider of the pool named in the path (as /api/pools/{pool_id}/proxy/…) */
        trace: operations["tracePPoolName"];
    };
    "/api/providers/{provider_id}/refusals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The resources a provider refuses */
        get: operations["getProvidersProviderIdRefusals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/providers/{provider_id}/refusals/{resource}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Clear a refusal, so the provider serves the resource again */
        delete: operations["deleteProvidersProviderIdRefusalsResource"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chunks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List chunks by parent, sequence and id, a page (at most `limit` chunks and 4 MiB of JSON) at a time */
        get: operations["getChunks"];
        put?: never;
        /** Store one chunk */
        post: operations["postChunks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chunks/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Store up to 1,000 chunks, all or none */
        post: operations["postChunksBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chunks/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Find the chunks most similar to an embedding (exact cosine similarity) */
        post: operations["postChunksSearch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chunk-models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the embedding models that hold chunks, with their dimension and chunk count */
        get: operations["getChunkModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chunks/{chunk_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a chunk exactly as stored */
        get: operations["getChunksChunkId"];
        /** Replace a chunk */
        put: operations["putChunksChunkId"];
        post?: never;
        /** Delete a chunk */
        delete: operations["deleteChunksChunkId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Audit trail of admin changes, newest first, a page at a time (admin scope) */
        get: operations["getAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A server-sent event stream of rotations, failovers, health changes, refusals learned, quota windows used up and admin changes */
        get: operations["getEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/config/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** What applying a declared state would change */
        post: operations["postConfigPlan"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/config/apply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make the stored state what a declared state says, in one transaction */
        post: operations["postConfigApply"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/config/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The stored state as a declared state (credentials as placeholders) */
        get: operations["getConfigExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/status/endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Registration status of the /api/v1 routes */
        get: operations["getV1StatusEndpoints"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/investigations/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start an investigation (temporarily unavailable) */
        post: operations["postV1InvestigationsStart"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ws/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Chat over WebSocket (messages are not processed); plain HTTP answers 426 */
        get: operations["getV1WsChat"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/graphql": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** GraphQL (no schema is defined) */
        post: operations["postGraphql"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agent_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Agent stubs (dandara, lampiao, niemeyer); none is implemented */
        post: operations["postV1AgentsAgentName"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                        /** @description present when something works degraded, e.g. the response cache cannot reach Redis */
                        detail?: string;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the token's name, or `anonymous` */
                        actor: string;
                        /** @description read < client < admin; admin for everyone when no tokens are configured; null when tokens are required and none was sent */
                        scope: "read" | "client" | "admin" | (never | null);
                        /** @description whether the service was started with AUTH_TOKENS */
                        tokens_required: boolean;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getProviders: {
        parameters: {
            query?: {
                /** @description at most this many providers (by id, after offset); every one when left out */
                limit?: number;
                /** @description providers skipped first, by id */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description providers by id; X-Total-Count tells how many there are in all */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the provider's id, as the original service named it (same as provider_id) */
                        id: number;
                        provider_id: number;
                        name: string;
                        category: string | null;
                        /** @description as stored for admin callers; for others every query value and any password read *** */
                        base_url: string | null;
                        /** @description where its WebSocket streams go, masked as base_url is; null: base_url with ws:// or wss:// */
                        ws_url: string | null;
                        description: string | null;
                        /** @description quota per fixed, clock-aligned window, in requests or in credits; null without one */
                        rate_limit: {
                            requests: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | {
                            credits: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | (never | null);
                        timeout_ms: number | null;
                        /** @description the names of the credential headers; values are never returned */
                        auth_headers: {
                            [key: string]: "***";
                        } | null;
                        health_check: {
                            path: string;
                            interval_s: number;
                            timeout_ms: number;
                            expect_status: (number | string)[];
                            healthy_threshold: number;
                            unhealthy_threshold: number;
                        } | null;
                        last_check: {
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            at: string;
                            ok: boolean;
                            /** @description the answer's status, null when none came */
                            status_code: number | null;
                            /** @description why no answer came (timeout, connection refused…), null when one did */
                            error: string | null;
                            latency_ms: number | null;
                        } | null;
                        /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                        methods: {
                            /** @description only the methods these match (default: every method); leave it out rather than empty */
                            allow?: string[];
                            /** @description never the methods these match, even when allowed */
                            deny?: string[];
                        } | null;
                        /** @description the most blocks one eth_getLogs call may span at this provider (null: no limit) */
                        max_logs_range: number | null;
                        /** @description the most calls of one client batch sent to this provider as one upstream batch (1: one by one) */
                        max_batch_size: number;
                        /**
                         * @description RPC pools: `refused` once this process saw the provider refuse an upstream batch on some path (a 4xx but 413, or a 501, for the list, or one object where a list was due; then the same calls taken one by one): it is sent single calls on that path since, until the provider is updated (any PUT, its max_batch_size sent again included) or the process restarts; null otherwise
                         * @enum {string|null}
                         */
                        batches: "refused" | null;
                        /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                        method_costs: {
                            [key: string]: number;
                        } | null;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        created_at: string;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        updated_at: string;
                    }[];
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    category?: string | null;
                    /** @description http:// or https:// URL, without user:password@ (credentials go in auth_headers); its query parameters are sent with every request, before the client's */
                    base_url?: string | null;
                    /** @description ws:// or wss:// URL the provider's WebSocket streams go to, without user:password@ (credentials go in auth_headers); null: base_url with ws:// for http:// and wss:// for https:// */
                    ws_url?: string | null;
                    description?: string | null;
                    /** @description quota per fixed, clock-aligned window: exactly one of `requests` and `credits`, with `per` */
                    rate_limit?: {
                        /** @description hand-outs (proxied attempts, rotations) per window */
                        requests?: number;
                        /** @description credits per window, each proxied attempt spending what its call costs (method_costs) */
                        credits?: number;
                        /** @enum {string} */
                        per: "second" | "minute" | "hour" | "day";
                    } | null;
                    /** @description proxy: how long an attempt may wait for the answer to start (default 10,000) */
                    timeout_ms?: number | null;
                    /** @description headers the proxy adds to every request to this provider (for example an API key); answered with the values masked */
                    auth_headers?: {
                        [key: string]: string;
                    } | null;
                    /** @description active health check; null turns it off */
                    health_check?: {
                        /** @description requested with GET, relative to base_url (its path and query come first), e.g. /health */
                        path: string;
                        /** @description seconds between checks (default 10), across every instance sharing the database */
                        interval_s?: number;
                        /** @description the whole check, answer and body (default 2,000); at most interval_s */
                        timeout_ms?: number;
                        /** @description codes and ranges that pass (default ["200-399"]); a redirect is never followed */
                        expect_status?: (number | string)[];
                        /** @description passing checks that bring a member back from a cooldown (default 2) */
                        healthy_threshold?: number;
                        /** @description failing checks in a row that start a cooldown, reason health_check (default 3) */
                        unhealthy_threshold?: number;
                    } | null;
                    /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                    methods?: {
                        /** @description only the methods these match (default: every method); leave it out rather than empty */
                        allow?: string[];
                        /** @description never the methods these match, even when allowed */
                        deny?: string[];
                    } | null;
                    /** @description evm pools: the most blocks one eth_getLogs call may span at this provider; a wider call is split into ranges of the smallest limit among the pool's enabled members (null: no limit) */
                    max_logs_range?: number | null;
                    /** @description RPC pools: the most calls of one client batch sent to this provider as one upstream JSON-RPC batch (default 10; 1 sends them one by one). A provider that refuses a batch is sent single calls from then on */
                    max_batch_size?: number | null;
                    /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                    method_costs?: {
                        [key: string]: number;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the provider's id, as the original service named it (same as provider_id) */
                        id: number;
                        provider_id: number;
                        name: string;
                        category: string | null;
                        /** @description as stored for admin callers; for others every query value and any password read *** */
                        base_url: string | null;
                        /** @description where its WebSocket streams go, masked as base_url is; null: base_url with ws:// or wss:// */
                        ws_url: string | null;
                        description: string | null;
                        /** @description quota per fixed, clock-aligned window, in requests or in credits; null without one */
                        rate_limit: {
                            requests: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | {
                            credits: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | (never | null);
                        timeout_ms: number | null;
                        /** @description the names of the credential headers; values are never returned */
                        auth_headers: {
                            [key: string]: "***";
                        } | null;
                        health_check: {
                            path: string;
                            interval_s: number;
                            timeout_ms: number;
                            expect_status: (number | string)[];
                            healthy_threshold: number;
                            unhealthy_threshold: number;
                        } | null;
                        last_check: {
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            at: string;
                            ok: boolean;
                            /** @description the answer's status, null when none came */
                            status_code: number | null;
                            /** @description why no answer came (timeout, connection refused…), null when one did */
                            error: string | null;
                            latency_ms: number | null;
                        } | null;
                        /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                        methods: {
                            /** @description only the methods these match (default: every method); leave it out rather than empty */
                            allow?: string[];
                            /** @description never the methods these match, even when allowed */
                            deny?: string[];
                        } | null;
                        /** @description the most blocks one eth_getLogs call may span at this provider (null: no limit) */
                        max_logs_range: number | null;
                        /** @description the most calls of one client batch sent to this provider as one upstream batch (1: one by one) */
                        max_batch_size: number;
                        /**
                         * @description RPC pools: `refused` once this process saw the provider refuse an upstream batch on some path (a 4xx but 413, or a 501, for the list, or one object where a list was due; then the same calls taken one by one): it is sent single calls on that path since, until the provider is updated (any PUT, its max_batch_size sent again included) or the process restarts; null otherwise
                         * @enum {string|null}
                         */
                        batches: "refused" | null;
                        /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                        method_costs: {
                            [key: string]: number;
                        } | null;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        created_at: string;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        updated_at: string;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getProvidersProviderId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                provider_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the provider's id, as the original service named it (same as provider_id) */
                        id: number;
                        provider_id: number;
                        name: string;
                        category: string | null;
                        /** @description as stored for admin callers; for others every query value and any password read *** */
                        base_url: string | null;
                        /** @description where its WebSocket streams go, masked as base_url is; null: base_url with ws:// or wss:// */
                        ws_url: string | null;
                        description: string | null;
                        /** @description quota per fixed, clock-aligned window, in requests or in credits; null without one */
                        rate_limit: {
                            requests: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | {
                            credits: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | (never | null);
                        timeout_ms: number | null;
                        /** @description the names of the credential headers; values are never returned */
                        auth_headers: {
                            [key: string]: "***";
                        } | null;
                        health_check: {
                            path: string;
                            interval_s: number;
                            timeout_ms: number;
                            expect_status: (number | string)[];
                            healthy_threshold: number;
                            unhealthy_threshold: number;
                        } | null;
                        last_check: {
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            at: string;
                            ok: boolean;
                            /** @description the answer's status, null when none came */
                            status_code: number | null;
                            /** @description why no answer came (timeout, connection refused…), null when one did */
                            error: string | null;
                            latency_ms: number | null;
                        } | null;
                        /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                        methods: {
                            /** @description only the methods these match (default: every method); leave it out rather than empty */
                            allow?: string[];
                            /** @description never the methods these match, even when allowed */
                            deny?: string[];
                        } | null;
                        /** @description the most blocks one eth_getLogs call may span at this provider (null: no limit) */
                        max_logs_range: number | null;
                        /** @description the most calls of one client batch sent to this provider as one upstream batch (1: one by one) */
                        max_batch_size: number;
                        /**
                         * @description RPC pools: `refused` once this process saw the provider refuse an upstream batch on some path (a 4xx but 413, or a 501, for the list, or one object where a list was due; then the same calls taken one by one): it is sent single calls on that path since, until the provider is updated (any PUT, its max_batch_size sent again included) or the process restarts; null otherwise
                         * @enum {string|null}
                         */
                        batches: "refused" | null;
                        /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                        method_costs: {
                            [key: string]: number;
                        } | null;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        created_at: string;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        updated_at: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    putProvidersProviderId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                provider_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string | null;
                    category?: string | null;
                    /** @description http:// or https:// URL, without user:password@ (credentials go in auth_headers); its query parameters are sent with every request, before the client's */
                    base_url?: string | null;
                    /** @description ws:// or wss:// URL the provider's WebSocket streams go to, without user:password@ (credentials go in auth_headers); null: base_url with ws:// for http:// and wss:// for https:// */
                    ws_url?: string | null;
                    description?: string | null;
                    /** @description quota per fixed, clock-aligned window: exactly one of `requests` and `credits`, with `per` */
                    rate_limit?: {
                        /** @description hand-outs (proxied attempts, rotations) per window */
                        requests?: number;
                        /** @description credits per window, each proxied attempt spending what its call costs (method_costs) */
                        credits?: number;
                        /** @enum {string} */
                        per: "second" | "minute" | "hour" | "day";
                    } | null;
                    /** @description proxy: how long an attempt may wait for the answer to start (default 10,000) */
                    timeout_ms?: number | null;
                    /** @description headers the proxy adds to every request to this provider (for example an API key); answered with the values masked */
                    auth_headers?: {
                        [key: string]: string;
                    } | null;
                    /** @description active health check; null turns it off */
                    health_check?: {
                        /** @description requested with GET, relative to base_url (its path and query come first), e.g. /health */
                        path: string;
                        /** @description seconds between checks (default 10), across every instance sharing the database */
                        interval_s?: number;
                        /** @description the whole check, answer and body (default 2,000); at most interval_s */
                        timeout_ms?: number;
                        /** @description codes and ranges that pass (default ["200-399"]); a redirect is never followed */
                        expect_status?: (number | string)[];
                        /** @description passing checks that bring a member back from a cooldown (default 2) */
                        healthy_threshold?: number;
                        /** @description failing checks in a row that start a cooldown, reason health_check (default 3) */
                        unhealthy_threshold?: number;
                    } | null;
                    /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                    methods?: {
                        /** @description only the methods these match (default: every method); leave it out rather than empty */
                        allow?: string[];
                        /** @description never the methods these match, even when allowed */
                        deny?: string[];
                    } | null;
                    /** @description evm pools: the most blocks one eth_getLogs call may span at this provider; a wider call is split into ranges of the smallest limit among the pool's enabled members (null: no limit) */
                    max_logs_range?: number | null;
                    /** @description RPC pools: the most calls of one client batch sent to this provider as one upstream JSON-RPC batch (default 10; 1 sends them one by one). A provider that refuses a batch is sent single calls from then on */
                    max_batch_size?: number | null;
                    /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                    method_costs?: {
                        [key: string]: number;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the provider's id, as the original service named it (same as provider_id) */
                        id: number;
                        provider_id: number;
                        name: string;
                        category: string | null;
                        /** @description as stored for admin callers; for others every query value and any password read *** */
                        base_url: string | null;
                        /** @description where its WebSocket streams go, masked as base_url is; null: base_url with ws:// or wss:// */
                        ws_url: string | null;
                        description: string | null;
                        /** @description quota per fixed, clock-aligned window, in requests or in credits; null without one */
                        rate_limit: {
                            requests: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | {
                            credits: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | (never | null);
                        timeout_ms: number | null;
                        /** @description the names of the credential headers; values are never returned */
                        auth_headers: {
                            [key: string]: "***";
                        } | null;
                        health_check: {
                            path: string;
                            interval_s: number;
                            timeout_ms: number;
                            expect_status: (number | string)[];
                            healthy_threshold: number;
                            unhealthy_threshold: number;
                        } | null;
                        last_check: {
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            at: string;
                            ok: boolean;
                            /** @description the answer's status, null when none came */
                            status_code: number | null;
                            /** @description why no answer came (timeout, connection refused…), null when one did */
                            error: string | null;
                            latency_ms: number | null;
                        } | null;
                        /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                        methods: {
                            /** @description only the methods these match (default: every method); leave it out rather than empty */
                            allow?: string[];
                            /** @description never the methods these match, even when allowed */
                            deny?: string[];
                        } | null;
                        /** @description the most blocks one eth_getLogs call may span at this provider (null: no limit) */
                        max_logs_range: number | null;
                        /** @description the most calls of one client batch sent to this provider as one upstream batch (1: one by one) */
                        max_batch_size: number;
                        /**
                         * @description RPC pools: `refused` once this process saw the provider refuse an upstream batch on some path (a 4xx but 413, or a 501, for the list, or one object where a list was due; then the same calls taken one by one): it is sent single calls on that path since, until the provider is updated (any PUT, its max_batch_size sent again included) or the process restarts; null otherwise
                         * @enum {string|null}
                         */
                        batches: "refused" | null;
                        /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                        method_costs: {
                            [key: string]: number;
                        } | null;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        created_at: string;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        updated_at: string;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    deleteProvidersProviderId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                provider_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        provider_id: number;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    deleteProvidersProviderIdRateLimit: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                provider_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the provider's id, as the original service named it (same as provider_id) */
                        id: number;
                        provider_id: number;
                        name: string;
                        category: string | null;
                        /** @description as stored for admin callers; for others every query value and any password read *** */
                        base_url: string | null;
                        /** @description where its WebSocket streams go, masked as base_url is; null: base_url with ws:// or wss:// */
                        ws_url: string | null;
                        description: string | null;
                        /** @description quota per fixed, clock-aligned window, in requests or in credits; null without one */
                        rate_limit: {
                            requests: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | {
                            credits: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | (never | null);
                        timeout_ms: number | null;
                        /** @description the names of the credential headers; values are never returned */
                        auth_headers: {
                            [key: string]: "***";
                        } | null;
                        health_check: {
                            path: string;
                            interval_s: number;
                            timeout_ms: number;
                            expect_status: (number | string)[];
                            healthy_threshold: number;
                            unhealthy_threshold: number;
                        } | null;
                        last_check: {
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            at: string;
                            ok: boolean;
                            /** @description the answer's status, null when none came */
                            status_code: number | null;
                            /** @description why no answer came (timeout, connection refused…), null when one did */
                            error: string | null;
                            latency_ms: number | null;
                        } | null;
                        /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                        methods: {
                            /** @description only the methods these match (default: every method); leave it out rather than empty */
                            allow?: string[];
                            /** @description never the methods these match, even when allowed */
                            deny?: string[];
                        } | null;
                        /** @description the most blocks one eth_getLogs call may span at this provider (null: no limit) */
                        max_logs_range: number | null;
                        /** @description the most calls of one client batch sent to this provider as one upstream batch (1: one by one) */
                        max_batch_size: number;
                        /**
                         * @description RPC pools: `refused` once this process saw the provider refuse an upstream batch on some path (a 4xx but 413, or a 501, for the list, or one object where a list was due; then the same calls taken one by one): it is sent single calls on that path since, until the provider is updated (any PUT, its max_batch_size sent again included) or the process restarts; null otherwise
                         * @enum {string|null}
                         */
                        batches: "refused" | null;
                        /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                        method_costs: {
                            [key: string]: number;
                        } | null;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        created_at: string;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        updated_at: string;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getPools: {
        parameters: {
            query?: {
                /** @description at most this many pools (by pool_id, after offset); every one when left out */
                limit?: number;
                /** @description pools skipped first, by pool_id */
                offset?: number;
                /** @description summary: pool fields and members counted by health, without members, policy and history */
                fields?: "full" | "summary";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pools: {
                            pool_id: number;
                            name: string;
                            /** @description Same as name (the original service returned this field) */
                            pool_name: string;
                            category: string;
                            description: string | null;
                            rotation_strategy: string;
                            enabled: boolean;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            updated_at: string;
                            current_provider: {
                                /** @description the provider's id (as the original service named it) */
                                id: number;
                                provider_id: number;
                                name: string;
                                /**
                                 * @description always active: the provider rotated to last (its health is in members)
                                 * @enum {string}
                                 */
                                status: "active";
                            } | null;
                            total_rotations: number;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            last_rotation: string | null;
                            policy: {
                                failure_threshold: number;
                                cooldown_seconds: number;
                                max_cooldown_seconds: number;
                                all_down: string;
                                max_attempts: number;
                                retry_non_idempotent: boolean;
                                forward_client_auth: boolean;
                                forbidden_ttl_seconds: number;
                                cache_ttl_seconds: number;
                                cache_stale_seconds: number;
                                max_wait_ms: number;
                                deadline_ms: number;
                                retry_budget_percent: number;
                                retry_backoff_ms: number;
                                hedge_after_ms: number | null;
                                /**
                                 * @description what the pool's requests are: `http` (default) passes them through as they are; `jsonrpc` (JSON-RPC 2.0) and `evm` (JSON-RPC with Ethereum's methods) read each POST as JSON-RPC (docs/api.md, RPC pools)
                                 * @enum {string}
                                 */
                                protocol: "http" | "jsonrpc" | "evm";
                                finality_depth: number;
                                cache_unfinalized_ms: number;
                                head_check_interval_s: number;
                                max_block_lag: number;
                                broadcast_writes: boolean;
                                ws_ping_interval_ms: number;
                                /** @description streams: what a stream sends its new upstream after a failover: `none`, `first_second` (the client's messages of its first second; the default) or N (the client's first N messages) */
                                ws_replay: ("none" | "first_second") | number;
                                ws_max_streams: number;
                                ws_max_streams_per_client: number;
                                ws_max_message_bytes: number;
                                ws_send_buffer_bytes: number;
                                ws_idle_timeout_ms: number;
                            };
                            cache: {
                                ttl_seconds: number;
                                stale_seconds: number;
                                /** @description answers served fresh from the cache */
                                hits: number;
                                /** @description proxied requests of the pool that went upstream: misses and bypasses (not cacheable, no-cache, other methods) */
                                misses: number;
                                /** @description answers served stale */
                                stale: number;
                                /** @description live entries, as last counted */
                                entries: number;
                                /** @description (hits + stale) / (hits + stale + misses), four decimals; 0 before any */
                                hit_ratio: number;
                            };
                            retries: {
                                /** @description proxied attempts after a request's first, hedges included (all processes, written behind) */
                                made: number;
                                /** @description hedged second attempts sent (hedge_after_ms) */
                                hedges: number;
                                /** @description requests whose failing attempt could not be retried because the retry budget was spent */
                                budget_exhausted: number;
                            };
                            /** @description WebSocket streams through the pool on the process that answered (see Streams); exact to within a second */
                            streams: {
                                /** @description WebSocket client streams open in the pool on the process that answered */
                                open: number;
                                /** @description upstream eth_subscribe subscriptions, each shared by its clients (an RPC pool's) */
                                subscriptions: number;
                                /** @description streams moved to another member after their upstream was lost, since the process started */
                                failovers: number;
                                /** @description messages relayed to clients (each client counted), since the process started */
                                messages_to_clients: number;
                                /** @description messages sent to upstreams, since the process started */
                                messages_to_upstreams: number;
                                /** @description upstream WebSocket connections open, by provider */
                                upstreams: {
                                    provider_id: number;
                                    open: number;
                                }[];
                            };
                            members: {
                                member_id: number;
                                provider_id: number;
                                provider_name: string | null;
                                priority: number;
                                weight: number;
                                enabled: boolean;
                                use_count: number;
                                success_count: number;
                                failure_count: number;
                                /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                                last_used: string | null;
                                health: "healthy" | "cooling_down" | "probing";
                                /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                                cooldown_until: string | null;
                                cooldown_reason: string | null;
                                consecutive_failures: number;
                                /** @description moving average of reported latencies (α = 0.3) */
                                latency_ms: number | null;
                                /** @description a percentage: successes / (successes + failures) × 100, two decimals; 0 before any outcome (as the original service) */
                                success_rate: number;
                                /** @description the provider's quota window; null without a rate limit */
                                quota: {
                                    /** @description used in the current window, in `unit` */
                                    used: number;
                                    /** @description allowed per window, in `unit` */
                                    limit: number;
                                    /** @description what the quota counts: requests (hand-outs), or credits (what each call costs: the provider's method_costs) */
                                    unit: "requests" | "credits";
                                    /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                                    resets_at: string;
                                } | null;
                                /** @description the quota window in the original service's shape (`quota` has when it resets) */
                                rate_limit: {
                                    /** @description uses in the current window (credits, for a quota in credits: `quota.unit`) */
                                    usage: number;
                                    /** @description uses allowed per window (likewise) */
                                    limit: number;
                                    /** @description usage / limit × 100, one decimal */
                                    percentage: number;
                                    /** @description warning from 80 %, blocked from 100 % */
                                    status: "ok" | "warning" | "blocked";
                                } | null;
                                last_check: {
                                    /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                                    at: string;
                                    ok: boolean;
                                    /** @description the answer's status, null when none came */
                                    status_code: number | null;
                                    /** @description why no answer came (timeout, connection refused…), null when one did */
                                    error: string | null;
                                    latency_ms: number | null;
                                } | null;
                                /** @description whether a rotation or the proxy may choose it now (as `/next` says) */
                                eligible: boolean;
                                /** @description why not, as `/next`'s `reason` (disabled, cooling_down, rate_limited, quota_exhausted); null when eligible */
                                ineligible_reason: string | null;
                                /** @description ISO 8601 UTC: when its cooldown, rate-limit pause or quota window ends; null when eligible, switched off or not known */
                                eligible_again_at: string | null;
                                /** @description evm pools only: the node's head block number, in decimal; null while unknown (the pool not used lately, the member switched off, no check answered yet) */
                                head_block?: string | null;
                                /** @description evm pools only: blocks behind the pool's highest head; null while unknown */
                                block_lag?: number | null;
                                /** @description evm pools only: more than the pool's max_block_lag behind, so left out of calls at latest or pending, above its head, and head-dependent reads */
                                lagging?: boolean;
                            }[];
                            recent_rotations: {
                                id: number;
                                /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                                timestamp: string;
                                from_provider: string | null;
                                to_provider: string | null;
                                reason: string;
                                success: boolean;
                                notes: string | null;
                            }[];
                        }[];
                        /** @description every pool, whatever limit and offset (without them, the number of entries in pools) */
                        total: number;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        timestamp: string;
                    } | {
                        pools: {
                            pool_id: number;
                            name: string;
                            category: string;
                            description: string | null;
                            rotation_strategy: string;
                            enabled: boolean;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            updated_at: string;
                            current_provider: {
                                /** @description the provider's id (as the original service named it) */
                                id: number;
                                provider_id: number;
                                name: string;
                                /**
                                 * @description always active: the provider rotated to last (its health is in members)
                                 * @enum {string}
                                 */
                                status: "active";
                            } | null;
                            total_rotations: number;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            last_rotation: string | null;
                            /** @description members by health; the four add up to the number of members */
                            member_counts: {
                                healthy: number;
                                probing: number;
                                cooling_down: number;
                                /** @description members switched off (enabled false), whatever their health */
                                disabled: number;
                            };
                        }[];
                        /** @description every pool, whatever limit and offset (without them, the number of entries in pools) */
                        total: number;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        timestamp: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postPools: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    category: string;
                    description?: string | null;
                    /** @enum {string|null} */
                    rotation_strategy?: "round_robin" | "weighted" | "priority" | "least_used" | "random" | "least_latency" | "least_outstanding" | "consistent_hash" | null;
                    /** @description consecutive failures that start a cooldown (default 3) */
                    failure_threshold?: number | null;
                    /** @description first cooldown, doubled for each further trip (default 30) */
                    cooldown_seconds?: number | null;
                    /** @description cap of the doubling (default 300) */
                    max_cooldown_seconds?: number | null;
                    /**
                     * @description when every enabled member is cooling down: use the one whose cooldown ends first (default), or answer 404
                     * @enum {string|null}
                     */
                    all_down?: "soonest" | "fail" | null;
                    /** @description proxy: providers tried per request (default 3) */
                    max_attempts?: number | null;
                    /** @description proxy: retry POST and PATCH without an Idempotency-Key too (default false) */
                    retry_non_idempotent?: boolean | null;
                    /** @description proxy: forward the client's Authorization and Cookie headers (default false) */
                    forward_client_auth?: boolean | null;
                    /** @description proxy: how long a provider's 403 for a resource keeps it from that resource (default 3,600) */
                    forbidden_ttl_seconds?: number | null;
                    /** @description proxy: how long an answer to a GET is served from the cache (default 0: no cache) */
                    cache_ttl_seconds?: number | null;
                    /** @description proxy: how long after that a cached answer is still served as STALE, while it is refreshed or when every member fails (default 0) */
                    cache_stale_seconds?: number | null;
                    /** @description proxy: how long a request may wait for a member to become eligible instead of answering 503 (default 0) */
                    max_wait_ms?: number | null;
                    /** @description proxy: the longest a request may take across all its attempts and waits; past it, 504 (default 30,000) */
                    deadline_ms?: number | null;
                    /** @description proxy: retries allowed over a sliding 10 s window, as a percent of the pool's first attempts, at least 3 (default 20) */
                    retry_budget_percent?: number | null;
                    /** @description proxy: before retry n, a random wait up to this × 2^(n−2) (full jitter; default 0: none) */
                    retry_backoff_ms?: number | null;
                    /** @description proxy: a second attempt to another member when the first has not started answering after this long (default off; 0 turns it off) */
                    hedge_after_ms?: number | null;
                    /**
                     * @description what the pool's requests are: `http` (default) passes them through as they are; `jsonrpc` (JSON-RPC 2.0) and `evm` (JSON-RPC with Ethereum's methods) read each POST as JSON-RPC (docs/api.md, RPC pools)
                     * @enum {string|null}
                     */
                    protocol?: "http" | "jsonrpc" | "evm" | null;
                    /** @description evm: where a node has no `finalized` tag, the finalized block is the pool's highest head − this many blocks (default 64) */
                    finality_depth?: number | null;
                    /** @description evm: how long an answer that may still change (at `latest`, `pending` or a block not yet final) is stored (default 0: shared while in flight, not stored) */
                    cache_unfinalized_ms?: number | null;
                    /** @description evm: seconds between the `eth_blockNumber` checks of each member's head (default 5) */
                    head_check_interval_s?: number | null;
                    /** @description evm: a member more than this many blocks behind the pool's highest head is left out of calls at `latest` (default 5) */
                    max_block_lag?: number | null;
                    /** @description evm: send each eth_sendRawTransaction to every eligible member at once and answer with the first acceptance (default false: one member) */
                    broadcast_writes?: boolean | null;
                    /** @description streams: milliseconds between the pings sent on a stream's connections (default 30,000) */
                    ws_ping_interval_ms?: number | null;
                    /** @description streams: what a stream sends its new upstream after a failover: `none`, `first_second` (the client's messages of its first second; the default) or N (the client's first N messages) */
                    ws_replay?: ("none" | "first_second" | null) | number;
                    /** @description streams: streams open at once through the pool (default 1,000) */
                    ws_max_streams?: number | null;
                    /** @description streams: streams open at once through the pool from one client address (default 100) */
                    ws_max_streams_per_client?: number | null;
                    /** @description streams: the largest message a stream carries, either way, in bytes (default 1,048,576) */
                    ws_max_message_bytes?: number | null;
                    /** @description streams: bytes a stream may hold on their way to a slow reader (default 4,194,304) */
                    ws_send_buffer_bytes?: number | null;
                    /** @description streams: milliseconds a stream may carry no message before it is closed; 0: no limit (default 300,000) */
                    ws_idle_timeout_ms?: number | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        name: string;
                        category: string;
                        rotation_strategy: string;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        created_at: string;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getPoolsPoolId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        name: string;
                        /** @description Same as name (the original service returned this field) */
                        pool_name: string;
                        category: string;
                        description: string | null;
                        rotation_strategy: string;
                        enabled: boolean;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        created_at: string;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        updated_at: string;
                        current_provider: {
                            /** @description the provider's id (as the original service named it) */
                            id: number;
                            provider_id: number;
                            name: string;
                            /**
                             * @description always active: the provider rotated to last (its health is in members)
                             * @enum {string}
                             */
                            status: "active";
                        } | null;
                        total_rotations: number;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        last_rotation: string | null;
                        policy: {
                            failure_threshold: number;
                            cooldown_seconds: number;
                            max_cooldown_seconds: number;
                            all_down: string;
                            max_attempts: number;
                            retry_non_idempotent: boolean;
                            forward_client_auth: boolean;
                            forbidden_ttl_seconds: number;
                            cache_ttl_seconds: number;
                            cache_stale_seconds: number;
                            max_wait_ms: number;
                            deadline_ms: number;
                            retry_budget_percent: number;
                            retry_backoff_ms: number;
                            hedge_after_ms: number | null;
                            /**
                             * @description what the pool's requests are: `http` (default) passes them through as they are; `jsonrpc` (JSON-RPC 2.0) and `evm` (JSON-RPC with Ethereum's methods) read each POST as JSON-RPC (docs/api.md, RPC pools)
                             * @enum {string}
                             */
                            protocol: "http" | "jsonrpc" | "evm";
                            finality_depth: number;
                            cache_unfinalized_ms: number;
                            head_check_interval_s: number;
                            max_block_lag: number;
                            broadcast_writes: boolean;
                            ws_ping_interval_ms: number;
                            /** @description streams: what a stream sends its new upstream after a failover: `none`, `first_second` (the client's messages of its first second; the default) or N (the client's first N messages) */
                            ws_replay: ("none" | "first_second") | number;
                            ws_max_streams: number;
                            ws_max_streams_per_client: number;
                            ws_max_message_bytes: number;
                            ws_send_buffer_bytes: number;
                            ws_idle_timeout_ms: number;
                        };
                        cache: {
                            ttl_seconds: number;
                            stale_seconds: number;
                            /** @description answers served fresh from the cache */
                            hits: number;
                            /** @description proxied requests of the pool that went upstream: misses and bypasses (not cacheable, no-cache, other methods) */
                            misses: number;
                            /** @description answers served stale */
                            stale: number;
                            /** @description live entries, as last counted */
                            entries: number;
                            /** @description (hits + stale) / (hits + stale + misses), four decimals; 0 before any */
                            hit_ratio: number;
                        };
                        retries: {
                            /** @description proxied attempts after a request's first, hedges included (all processes, written behind) */
                            made: number;
                            /** @description hedged second attempts sent (hedge_after_ms) */
                            hedges: number;
                            /** @description requests whose failing attempt could not be retried because the retry budget was spent */
                            budget_exhausted: number;
                        };
                        /** @description WebSocket streams through the pool on the process that answered (see Streams); exact to within a second */
                        streams: {
                            /** @description WebSocket client streams open in the pool on the process that answered */
                            open: number;
                            /** @description upstream eth_subscribe subscriptions, each shared by its clients (an RPC pool's) */
                            subscriptions: number;
                            /** @description streams moved to another member after their upstream was lost, since the process started */
                            failovers: number;
                            /** @description messages relayed to clients (each client counted), since the process started */
                            messages_to_clients: number;
                            /** @description messages sent to upstreams, since the process started */
                            messages_to_upstreams: number;
                            /** @description upstream WebSocket connections open, by provider */
                            upstreams: {
                                provider_id: number;
                                open: number;
                            }[];
                        };
                        members: {
                            member_id: number;
                            provider_id: number;
                            provider_name: string | null;
                            priority: number;
                            weight: number;
                            enabled: boolean;
                            use_count: number;
                            success_count: number;
                            failure_count: number;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            last_used: string | null;
                            health: "healthy" | "cooling_down" | "probing";
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            cooldown_until: string | null;
                            cooldown_reason: string | null;
                            consecutive_failures: number;
                            /** @description moving average of reported latencies (α = 0.3) */
                            latency_ms: number | null;
                            /** @description a percentage: successes / (successes + failures) × 100, two decimals; 0 before any outcome (as the original service) */
                            success_rate: number;
                            /** @description the provider's quota window; null without a rate limit */
                            quota: {
                                /** @description used in the current window, in `unit` */
                                used: number;
                                /** @description allowed per window, in `unit` */
                                limit: number;
                                /** @description what the quota counts: requests (hand-outs), or credits (what each call costs: the provider's method_costs) */
                                unit: "requests" | "credits";
                                /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                                resets_at: string;
                            } | null;
                            /** @description the quota window in the original service's shape (`quota` has when it resets) */
                            rate_limit: {
                                /** @description uses in the current window (credits, for a quota in credits: `quota.unit`) */
                                usage: number;
                                /** @description uses allowed per window (likewise) */
                                limit: number;
                                /** @description usage / limit × 100, one decimal */
                                percentage: number;
                                /** @description warning from 80 %, blocked from 100 % */
                                status: "ok" | "warning" | "blocked";
                            } | null;
                            last_check: {
                                /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                                at: string;
                                ok: boolean;
                                /** @description the answer's status, null when none came */
                                status_code: number | null;
                                /** @description why no answer came (timeout, connection refused…), null when one did */
                                error: string | null;
                                latency_ms: number | null;
                            } | null;
                            /** @description whether a rotation or the proxy may choose it now (as `/next` says) */
                            eligible: boolean;
                            /** @description why not, as `/next`'s `reason` (disabled, cooling_down, rate_limited, quota_exhausted); null when eligible */
                            ineligible_reason: string | null;
                            /** @description ISO 8601 UTC: when its cooldown, rate-limit pause or quota window ends; null when eligible, switched off or not known */
                            eligible_again_at: string | null;
                            /** @description evm pools only: the node's head block number, in decimal; null while unknown (the pool not used lately, the member switched off, no check answered yet) */
                            head_block?: string | null;
                            /** @description evm pools only: blocks behind the pool's highest head; null while unknown */
                            block_lag?: number | null;
                            /** @description evm pools only: more than the pool's max_block_lag behind, so left out of calls at latest or pending, above its head, and head-dependent reads */
                            lagging?: boolean;
                        }[];
                        recent_rotations: {
                            id: number;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            timestamp: string;
                            from_provider: string | null;
                            to_provider: string | null;
                            reason: string;
                            success: boolean;
                            notes: string | null;
                        }[];
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    putPoolsPoolId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @enum {string|null} */
                    rotation_strategy?: "round_robin" | "weighted" | "priority" | "least_used" | "random" | "least_latency" | "least_outstanding" | "consistent_hash" | null;
                    enabled?: boolean | null;
                    description?: string | null;
                    /** @description consecutive failures that start a cooldown (default 3) */
                    failure_threshold?: number | null;
                    /** @description first cooldown, doubled for each further trip (default 30) */
                    cooldown_seconds?: number | null;
                    /** @description cap of the doubling (default 300) */
                    max_cooldown_seconds?: number | null;
                    /**
                     * @description when every enabled member is cooling down: use the one whose cooldown ends first (default), or answer 404
                     * @enum {string|null}
                     */
                    all_down?: "soonest" | "fail" | null;
                    /** @description proxy: providers tried per request (default 3) */
                    max_attempts?: number | null;
                    /** @description proxy: retry POST and PATCH without an Idempotency-Key too (default false) */
                    retry_non_idempotent?: boolean | null;
                    /** @description proxy: forward the client's Authorization and Cookie headers (default false) */
                    forward_client_auth?: boolean | null;
                    /** @description proxy: how long a provider's 403 for a resource keeps it from that resource (default 3,600) */
                    forbidden_ttl_seconds?: number | null;
                    /** @description proxy: how long an answer to a GET is served from the cache (default 0: no cache) */
                    cache_ttl_seconds?: number | null;
                    /** @description proxy: how long after that a cached answer is still served as STALE, while it is refreshed or when every member fails (default 0) */
                    cache_stale_seconds?: number | null;
                    /** @description proxy: how long a request may wait for a member to become eligible instead of answering 503 (default 0) */
                    max_wait_ms?: number | null;
                    /** @description proxy: the longest a request may take across all its attempts and waits; past it, 504 (default 30,000) */
                    deadline_ms?: number | null;
                    /** @description proxy: retries allowed over a sliding 10 s window, as a percent of the pool's first attempts, at least 3 (default 20) */
                    retry_budget_percent?: number | null;
                    /** @description proxy: before retry n, a random wait up to this × 2^(n−2) (full jitter; default 0: none) */
                    retry_backoff_ms?: number | null;
                    /** @description proxy: a second attempt to another member when the first has not started answering after this long (default off; 0 turns it off) */
                    hedge_after_ms?: number | null;
                    /**
                     * @description what the pool's requests are: `http` (default) passes them through as they are; `jsonrpc` (JSON-RPC 2.0) and `evm` (JSON-RPC with Ethereum's methods) read each POST as JSON-RPC (docs/api.md, RPC pools)
                     * @enum {string|null}
                     */
                    protocol?: "http" | "jsonrpc" | "evm" | null;
                    /** @description evm: where a node has no `finalized` tag, the finalized block is the pool's highest head − this many blocks (default 64) */
                    finality_depth?: number | null;
                    /** @description evm: how long an answer that may still change (at `latest`, `pending` or a block not yet final) is stored (default 0: shared while in flight, not stored) */
                    cache_unfinalized_ms?: number | null;
                    /** @description evm: seconds between the `eth_blockNumber` checks of each member's head (default 5) */
                    head_check_interval_s?: number | null;
                    /** @description evm: a member more than this many blocks behind the pool's highest head is left out of calls at `latest` (default 5) */
                    max_block_lag?: number | null;
                    /** @description evm: send each eth_sendRawTransaction to every eligible member at once and answer with the first acceptance (default false: one member) */
                    broadcast_writes?: boolean | null;
                    /** @description streams: milliseconds between the pings sent on a stream's connections (default 30,000) */
                    ws_ping_interval_ms?: number | null;
                    /** @description streams: what a stream sends its new upstream after a failover: `none`, `first_second` (the client's messages of its first second; the default) or N (the client's first N messages) */
                    ws_replay?: ("none" | "first_second" | null) | number;
                    /** @description streams: streams open at once through the pool (default 1,000) */
                    ws_max_streams?: number | null;
                    /** @description streams: streams open at once through the pool from one client address (default 100) */
                    ws_max_streams_per_client?: number | null;
                    /** @description streams: the largest message a stream carries, either way, in bytes (default 1,048,576) */
                    ws_max_message_bytes?: number | null;
                    /** @description streams: bytes a stream may hold on their way to a slow reader (default 4,194,304) */
                    ws_send_buffer_bytes?: number | null;
                    /** @description streams: milliseconds a stream may carry no message before it is closed; 0: no limit (default 300,000) */
                    ws_idle_timeout_ms?: number | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        name: string;
                        rotation_strategy: string;
                        enabled: boolean;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        updated_at: string;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    deletePoolsPoolId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        pool_id: number;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postPoolsPoolIdMembers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    provider_id: number;
                    priority?: number | null;
                    weight?: number | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        member_id: number;
                        pool_id: number;
                        provider_id: number;
                        provider_name: string | null;
                        priority: number;
                        weight: number;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    putPoolsPoolIdMembersProviderId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                provider_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    priority?: number | null;
                    weight?: number | null;
                    enabled?: boolean | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        provider_id: number;
                        priority: number;
                        weight: number;
                        enabled: boolean;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    deletePoolsPoolIdMembersProviderId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                provider_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        pool_id: number;
                        provider_id: number;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getPoolsPoolIdActivity: {
        parameters: {
            query?: {
                /** @description whole minutes, ending with the current one (default 60) */
                minutes?: number;
            };
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        minutes: number;
                        /** @description the start of each minute, oldest first; the last is the current, partial minute */
                        minute_starts: string[];
                        /** @description history records that chose a provider (rotations and failovers) per minute */
                        rotations: number[];
                        /** @description of those, the failovers (through the API or inside proxied requests) */
                        failovers: number[];
                        /** @description one entry per current member, by member id */
                        latency: {
                            provider_id: number;
                            provider_name: string | null;
                            /** @description mean latency observed per minute in this pool (reports, proxied attempts, passing health checks); null without a sample */
                            latency_ms: (number | null)[];
                            /** @description latencies observed per minute */
                            samples: number[];
                        }[];
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getActivity: {
        parameters: {
            query?: {
                /** @description whole minutes, ending with the current one (default and most 60: every pool's history in the window is read) */
                minutes?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        minutes: number;
                        /** @description the start of each minute, oldest first; the last is the current, partial minute */
                        minute_starts: string[];
                        /** @description every pool, by pool_id */
                        pools: {
                            pool_id: number;
                            name: string;
                            /** @description history records that chose a provider (rotations and failovers) per minute */
                            rotations: number[];
                            /** @description of those, the failovers (through the API or inside proxied requests) */
                            failovers: number[];
                        }[];
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postPoolsPoolIdRotate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string | null;
                    /** @description consistent_hash: the same key gets the same member while the membership is stable (other strategies ignore it) */
                    key?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        provider_id: number;
                        provider_name: string | null;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        timestamp: string;
                        message: string;
                        /** @description Present (true) when every eligible member was cooling down and the one whose cooldown ends first was chosen */
                        degraded?: boolean;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postPoolsPoolIdFailover: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    failed_provider_id: number;
                    reason?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        failed_provider_id: number;
                        new_provider_id: number;
                        new_provider_name: string | null;
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        timestamp: string;
                        message: string;
                        /** @description Present (true) when every eligible member was cooling down and the one whose cooldown ends first was chosen */
                        degraded?: boolean;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getPoolsPoolIdHistory: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        history: {
                            id: number;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            timestamp: string;
                            from_provider: string | null;
                            to_provider: string | null;
                            reason: string;
                            success: boolean;
                            notes: string | null;
                        }[];
                        total: number;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postPoolsPoolIdReport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    provider_id: number;
                    success: boolean;
                    status_code?: number | null;
                    latency_ms?: number | null;
                    retry_after_s?: number | null;
                    error?: string | null;
                    /** @description the path (and query) the call asked for, relative to the provider's base_url: a 401/402 is then judged as the proxy judges it, a refusal of that resource alone unless our key is refused across resources */
                    path?: string | null;
                    /** @description the provider's answer headers (as many as 50): its rate-limit signals (Retry-After, X-RateLimit-Remaining/Reset, RateLimit-*) are read from them */
                    headers?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        provider_id: number;
                        provider_name: string | null;
                        health: "healthy" | "cooling_down" | "probing";
                        /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                        cooldown_until: string | null;
                        cooldown_reason: string | null;
                        consecutive_failures: number;
                        /** @description moving average of reported latencies (α = 0.3) */
                        latency_ms: number | null;
                        /** @description a percentage: successes / (successes + failures) × 100, two decimals; 0 before any outcome (as the original service) */
                        success_rate: number;
                        success_count: number;
                        failure_count: number;
                        last_error: string | null;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getPoolsPoolIdNext: {
        parameters: {
            query?: {
                /** @description a resource (first path segment, e.g. /despesas): members that refuse it are not eligible */
                resource?: string;
                /** @description consistent_hash: the same key gets the same member while the membership is stable (other strategies ignore it) */
                key?: string;
            };
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        resource: string | null;
                        pool_enabled: boolean;
                        rotation_strategy: string;
                        /** @description the provider the next rotation would choose; null when none, or when the strategy is random */
                        provider_id: number | null;
                        provider_name: string | null;
                        degraded: boolean;
                        /** @description provider ids the next rotation chooses among */
                        candidates: number[];
                        explanation: string;
                        members: {
                            member_id: number;
                            provider_id: number;
                            provider_name: string | null;
                            eligible: boolean;
                            /** @description disabled, cooling_down, quota_exhausted or refuses_resource */
                            reason: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            until: string | null;
                            /** @description the provider answered 403 for the resource asked about, and that refusal is in force */
                            refuses_resource: boolean;
                            health: "healthy" | "cooling_down" | "probing";
                            /** @description why its cooldown started (consecutive_failures, probe_failed, rate_limited, health_check) */
                            cooldown_reason: string | null;
                            /** @description the provider's quota window; null without a rate limit */
                            quota: {
                                /** @description used in the current window, in `unit` */
                                used: number;
                                /** @description allowed per window, in `unit` */
                                limit: number;
                                /** @description what the quota counts: requests (hand-outs), or credits (what each call costs: the provider's method_costs) */
                                unit: "requests" | "credits";
                                /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                                resets_at: string;
                            } | null;
                            last_check: {
                                /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                                at: string;
                                ok: boolean;
                                /** @description the answer's status, null when none came */
                                status_code: number | null;
                                /** @description why no answer came (timeout, connection refused…), null when one did */
                                error: string | null;
                                latency_ms: number | null;
                            } | null;
                            /** @description evm pools only: the node's head block number, in decimal; null while unknown (the pool not used lately, the member switched off, no check answered yet) */
                            head_block?: string | null;
                            /** @description evm pools only: blocks behind the pool's highest head; null while unknown */
                            block_lag?: number | null;
                            /** @description evm pools only: more than the pool's max_block_lag behind, so left out of calls at latest or pending, above its head, and head-dependent reads */
                            lagging?: boolean;
                        }[];
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    deletePoolsPoolIdCache: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        pool_id: number;
                        purged: number;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    getPoolsPoolIdProxy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    putPoolsPoolIdProxy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    postPoolsPoolIdProxy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deletePoolsPoolIdProxy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    optionsPoolsPoolIdProxy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    headPoolsPoolIdProxy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    patchPoolsPoolIdProxy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    tracePoolsPoolIdProxy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_id: number;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getPPoolName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_name: string;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    putPPoolName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_name: string;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    postPPoolName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_name: string;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deletePPoolName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_name: string;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    optionsPPoolName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_name: string;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    headPPoolName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_name: string;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    patchPPoolName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_name: string;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    tracePPoolName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                pool_name: string;
                /** @description the path (and query) sent on to the provider, under its base URL */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description TRACE and CONNECT are never forwarded (Allow lists the methods that are) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Every provider tried failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No provider is available now; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request's deadline passed before an answer started */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The provider's answer: its status, headers and body as it sent them */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getProvidersProviderIdRefusals: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                provider_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        provider_id: number;
                        refusals: {
                            /** @description first path segment, e.g. /despesas */
                            resource: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            first_seen: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            last_seen: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            expires_at: string;
                        }[];
                        total: number;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    deleteProvidersProviderIdRefusalsResource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                provider_id: number;
                /** @description the resource with or without its leading slash */
                resource: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        provider_id: number;
                        resource: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getChunks: {
        parameters: {
            query?: {
                parent_id?: string;
                source?: string;
                task?: string;
                content_type?: string;
                embedding_model?: string;
                /** @description most chunks in the page; a page also ends before 4 MiB of JSON */
                limit?: number;
                /** @description next_cursor of the previous page */
                cursor?: string;
                include_embedding?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chunks: {
                            chunk_id: string;
                            content: string;
                            embedding?: number[];
                            embedding_model: string;
                            embedding_dim: number;
                            metadata: {
                                [key: string]: unknown;
                            };
                        }[];
                        /** @description chunks matching the filter, on every page */
                        total: number;
                        /** @description pass as `cursor` for the next page; null after the last. A page can hold fewer than `limit` chunks and still have a next one */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postChunks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chunk_id: string;
                    content: string;
                    /** @description float64 numbers, returned exactly as sent */
                    embedding: number[];
                    embedding_model: string;
                    embedding_dim: number;
                    /** @description Extra keys are kept and returned as sent */
                    metadata: {
                        parent_id: string;
                        source: string;
                        task: string;
                        sequence: number;
                        total_chunks: number;
                        content_type: string;
                        related_chunks?: string[] | null;
                        chunk_length?: number | null;
                        /** @description ISO 8601 date or date-time */
                        created_timestamp?: string | null;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chunk_id: string;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Default Response */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                        conflicts?: {
                            index: number;
                            chunk_id: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postChunksBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chunks: {
                        chunk_id: string;
                        content: string;
                        /** @description float64 numbers, returned exactly as sent */
                        embedding: number[];
                        embedding_model: string;
                        embedding_dim: number;
                        /** @description Extra keys are kept and returned as sent */
                        metadata: {
                            parent_id: string;
                            source: string;
                            task: string;
                            sequence: number;
                            total_chunks: number;
                            content_type: string;
                            related_chunks?: string[] | null;
                            chunk_length?: number | null;
                            /** @description ISO 8601 date or date-time */
                            created_timestamp?: string | null;
                        } & {
                            [key: string]: unknown;
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        inserted: number;
                        chunk_ids: string[];
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Default Response */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                        conflicts?: {
                            index: number;
                            chunk_id: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postChunksSearch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description float64 numbers, returned exactly as sent */
                    embedding: number[];
                    embedding_model: string;
                    top_k?: number | null;
                    filter?: {
                        parent_id?: string;
                        source?: string;
                        task?: string;
                        content_type?: string;
                        embedding_model?: string;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: {
                            chunk_id: string;
                            /** @description cosine similarity, highest first */
                            score: number;
                            content: string;
                            metadata: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getChunkModels: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description models holding chunks, by name (at most 1,000) */
                        models: {
                            embedding_model: string;
                            /** @description every chunk of the model has this many numbers */
                            embedding_dim: number;
                            chunk_count: number;
                        }[];
                        /** @description models holding chunks, in all */
                        total: number;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getChunksChunkId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chunk_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chunk_id: string;
                        content: string;
                        embedding?: number[];
                        embedding_model: string;
                        embedding_dim: number;
                        metadata: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    putChunksChunkId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chunk_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chunk_id: string;
                    content: string;
                    /** @description float64 numbers, returned exactly as sent */
                    embedding: number[];
                    embedding_model: string;
                    embedding_dim: number;
                    /** @description Extra keys are kept and returned as sent */
                    metadata: {
                        parent_id: string;
                        source: string;
                        task: string;
                        sequence: number;
                        total_chunks: number;
                        content_type: string;
                        related_chunks?: string[] | null;
                        chunk_length?: number | null;
                        /** @description ISO 8601 date or date-time */
                        created_timestamp?: string | null;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chunk_id: string;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    deleteChunksChunkId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chunk_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chunk_id: string;
                        message: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    getAudit: {
        parameters: {
            query?: {
                actor?: string;
                action?: string;
                target?: string;
                /** @description records at or after this time */
                since?: string;
                limit?: number;
                /** @description next_cursor of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        records: {
                            id: number;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z */
                            timestamp: string;
                            actor: string;
                            action: string;
                            target: string;
                            changes: {
                                [key: string]: unknown;
                            };
                            request_id: string;
                            /** @description where the change came from: the client address (with TRUST_PROXY, the one the front door reported); null for changes made outside a request */
                            client_address: string | null;
                        }[];
                        /** @description records matching the filters, on every page */
                        total: number;
                        /** @description pass as `cursor` for the next page; null on the last page */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getEvents: {
        parameters: {
            query?: {
                /** @description only the events of this pool */
                pool_id?: number;
                /** @description comma-separated: rotation, failover, health, refusal, quota, admin */
                type?: string;
                /** @description resume after this event (as the Last-Event-ID header does) */
                last_event_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream: `id`, `event` (rotation, failover, health, refusal, quota, admin) and `data` (JSON) per event */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        detail: string;
                    };
                };
            };
        };
    };
    postConfigPlan: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description delete providers, pools and members the state does not declare (default false) */
                    prune?: boolean;
                    providers?: {
                        name: string;
                        category?: string | null;
                        /** @description http:// or https:// URL, without user:password@ (credentials go in auth_headers); its query parameters are sent with every request, before the client's */
                        base_url?: string | null;
                        /** @description ws:// or wss:// URL the provider's WebSocket streams go to, without user:password@ (credentials go in auth_headers); null: base_url with ws:// for http:// and wss:// for https:// */
                        ws_url?: string | null;
                        description?: string | null;
                        /** @description quota per fixed, clock-aligned window: exactly one of `requests` and `credits`, with `per` */
                        rate_limit?: {
                            /** @description hand-outs (proxied attempts, rotations) per window */
                            requests?: number;
                            /** @description credits per window, each proxied attempt spending what its call costs (method_costs) */
                            credits?: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | null;
                        /** @description proxy: how long an attempt may wait for the answer to start (default 10,000) */
                        timeout_ms?: number | null;
                        /** @description headers the proxy adds to every request to this provider (for example an API key); answered with the values masked */
                        auth_headers?: {
                            [key: string]: string;
                        } | null;
                        /** @description active health check; null turns it off */
                        health_check?: {
                            /** @description requested with GET, relative to base_url (its path and query come first), e.g. /health */
                            path: string;
                            /** @description seconds between checks (default 10), across every instance sharing the database */
                            interval_s?: number;
                            /** @description the whole check, answer and body (default 2,000); at most interval_s */
                            timeout_ms?: number;
                            /** @description codes and ranges that pass (default ["200-399"]); a redirect is never followed */
                            expect_status?: (number | string)[];
                            /** @description passing checks that bring a member back from a cooldown (default 2) */
                            healthy_threshold?: number;
                            /** @description failing checks in a row that start a cooldown, reason health_check (default 3) */
                            unhealthy_threshold?: number;
                        } | null;
                        /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                        methods?: {
                            /** @description only the methods these match (default: every method); leave it out rather than empty */
                            allow?: string[];
                            /** @description never the methods these match, even when allowed */
                            deny?: string[];
                        } | null;
                        /** @description evm pools: the most blocks one eth_getLogs call may span at this provider; a wider call is split into ranges of the smallest limit among the pool's enabled members (null: no limit) */
                        max_logs_range?: number | null;
                        /** @description RPC pools: the most calls of one client batch sent to this provider as one upstream JSON-RPC batch (default 10; 1 sends them one by one). A provider that refuses a batch is sent single calls from then on */
                        max_batch_size?: number | null;
                        /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                        method_costs?: {
                            [key: string]: number;
                        } | null;
                    }[];
                    pools?: {
                        name: string;
                        category: string;
                        description?: string | null;
                        /** @enum {string|null} */
                        rotation_strategy?: "round_robin" | "weighted" | "priority" | "least_used" | "random" | "least_latency" | "least_outstanding" | "consistent_hash" | null;
                        /** @description consecutive failures that start a cooldown (default 3) */
                        failure_threshold?: number | null;
                        /** @description first cooldown, doubled for each further trip (default 30) */
                        cooldown_seconds?: number | null;
                        /** @description cap of the doubling (default 300) */
                        max_cooldown_seconds?: number | null;
                        /**
                         * @description when every enabled member is cooling down: use the one whose cooldown ends first (default), or answer 404
                         * @enum {string|null}
                         */
                        all_down?: "soonest" | "fail" | null;
                        /** @description proxy: providers tried per request (default 3) */
                        max_attempts?: number | null;
                        /** @description proxy: retry POST and PATCH without an Idempotency-Key too (default false) */
                        retry_non_idempotent?: boolean | null;
                        /** @description proxy: forward the client's Authorization and Cookie headers (default false) */
                        forward_client_auth?: boolean | null;
                        /** @description proxy: how long a provider's 403 for a resource keeps it from that resource (default 3,600) */
                        forbidden_ttl_seconds?: number | null;
                        /** @description proxy: how long an answer to a GET is served from the cache (default 0: no cache) */
                        cache_ttl_seconds?: number | null;
                        /** @description proxy: how long after that a cached answer is still served as STALE, while it is refreshed or when every member fails (default 0) */
                        cache_stale_seconds?: number | null;
                        /** @description proxy: how long a request may wait for a member to become eligible instead of answering 503 (default 0) */
                        max_wait_ms?: number | null;
                        /** @description proxy: the longest a request may take across all its attempts and waits; past it, 504 (default 30,000) */
                        deadline_ms?: number | null;
                        /** @description proxy: retries allowed over a sliding 10 s window, as a percent of the pool's first attempts, at least 3 (default 20) */
                        retry_budget_percent?: number | null;
                        /** @description proxy: before retry n, a random wait up to this × 2^(n−2) (full jitter; default 0: none) */
                        retry_backoff_ms?: number | null;
                        /** @description proxy: a second attempt to another member when the first has not started answering after this long (default off; 0 turns it off) */
                        hedge_after_ms?: number | null;
                        /**
                         * @description what the pool's requests are: `http` (default) passes them through as they are; `jsonrpc` (JSON-RPC 2.0) and `evm` (JSON-RPC with Ethereum's methods) read each POST as JSON-RPC (docs/api.md, RPC pools)
                         * @enum {string|null}
                         */
                        protocol?: "http" | "jsonrpc" | "evm" | null;
                        /** @description evm: where a node has no `finalized` tag, the finalized block is the pool's highest head − this many blocks (default 64) */
                        finality_depth?: number | null;
                        /** @description evm: how long an answer that may still change (at `latest`, `pending` or a block not yet final) is stored (default 0: shared while in flight, not stored) */
                        cache_unfinalized_ms?: number | null;
                        /** @description evm: seconds between the `eth_blockNumber` checks of each member's head (default 5) */
                        head_check_interval_s?: number | null;
                        /** @description evm: a member more than this many blocks behind the pool's highest head is left out of calls at `latest` (default 5) */
                        max_block_lag?: number | null;
                        /** @description evm: send each eth_sendRawTransaction to every eligible member at once and answer with the first acceptance (default false: one member) */
                        broadcast_writes?: boolean | null;
                        /** @description streams: milliseconds between the pings sent on a stream's connections (default 30,000) */
                        ws_ping_interval_ms?: number | null;
                        /** @description streams: what a stream sends its new upstream after a failover: `none`, `first_second` (the client's messages of its first second; the default) or N (the client's first N messages) */
                        ws_replay?: ("none" | "first_second" | null) | number;
                        /** @description streams: streams open at once through the pool (default 1,000) */
                        ws_max_streams?: number | null;
                        /** @description streams: streams open at once through the pool from one client address (default 100) */
                        ws_max_streams_per_client?: number | null;
                        /** @description streams: the largest message a stream carries, either way, in bytes (default 1,048,576) */
                        ws_max_message_bytes?: number | null;
                        /** @description streams: bytes a stream may hold on their way to a slow reader (default 4,194,304) */
                        ws_send_buffer_bytes?: number | null;
                        /** @description streams: milliseconds a stream may carry no message before it is closed; 0: no limit (default 300,000) */
                        ws_idle_timeout_ms?: number | null;
                        enabled?: boolean | null;
                        members?: {
                            /** @description a provider declared in the same state, by name */
                            provider: string;
                            priority?: number | null;
                            weight?: number | null;
                            enabled?: boolean | null;
                        }[];
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        changes: {
                            kind: "provider" | "pool" | "member";
                            action: "create" | "update" | "delete";
                            /** @description the provider or pool; for a member, pool/provider */
                            name: string;
                            /** @description what changes: credentials shown as their header names with *** values */
                            fields: {
                                [key: string]: {
                                    from: unknown;
                                    to: unknown;
                                };
                            };
                        }[];
                        summary: {
                            create: number;
                            update: number;
                            delete: number;
                        };
                        /** @description true once the changes are committed (apply); false for a plan */
                        applied: boolean;
                        /** @description these changes' fingerprint: apply with ?expect=<it> applies exactly them, or answers 409 when the stored state moved since the plan */
                        fingerprint: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    postConfigApply: {
        parameters: {
            query?: {
                /** @description the fingerprint of the plan that was reviewed */
                expect?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description delete providers, pools and members the state does not declare (default false) */
                    prune?: boolean;
                    providers?: {
                        name: string;
                        category?: string | null;
                        /** @description http:// or https:// URL, without user:password@ (credentials go in auth_headers); its query parameters are sent with every request, before the client's */
                        base_url?: string | null;
                        /** @description ws:// or wss:// URL the provider's WebSocket streams go to, without user:password@ (credentials go in auth_headers); null: base_url with ws:// for http:// and wss:// for https:// */
                        ws_url?: string | null;
                        description?: string | null;
                        /** @description quota per fixed, clock-aligned window: exactly one of `requests` and `credits`, with `per` */
                        rate_limit?: {
                            /** @description hand-outs (proxied attempts, rotations) per window */
                            requests?: number;
                            /** @description credits per window, each proxied attempt spending what its call costs (method_costs) */
                            credits?: number;
                            /** @enum {string} */
                            per: "second" | "minute" | "hour" | "day";
                        } | null;
                        /** @description proxy: how long an attempt may wait for the answer to start (default 10,000) */
                        timeout_ms?: number | null;
                        /** @description headers the proxy adds to every request to this provider (for example an API key); answered with the values masked */
                        auth_headers?: {
                            [key: string]: string;
                        } | null;
                        /** @description active health check; null turns it off */
                        health_check?: {
                            /** @description requested with GET, relative to base_url (its path and query come first), e.g. /health */
                            path: string;
                            /** @description seconds between checks (default 10), across every instance sharing the database */
                            interval_s?: number;
                            /** @description the whole check, answer and body (default 2,000); at most interval_s */
                            timeout_ms?: number;
                            /** @description codes and ranges that pass (default ["200-399"]); a redirect is never followed */
                            expect_status?: (number | string)[];
                            /** @description passing checks that bring a member back from a cooldown (default 2) */
                            healthy_threshold?: number;
                            /** @description failing checks in a row that start a cooldown, reason health_check (default 3) */
                            unhealthy_threshold?: number;
                        } | null;
                        /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                        methods?: {
                            /** @description only the methods these match (default: every method); leave it out rather than empty */
                            allow?: string[];
                            /** @description never the methods these match, even when allowed */
                            deny?: string[];
                        } | null;
                        /** @description evm pools: the most blocks one eth_getLogs call may span at this provider; a wider call is split into ranges of the smallest limit among the pool's enabled members (null: no limit) */
                        max_logs_range?: number | null;
                        /** @description RPC pools: the most calls of one client batch sent to this provider as one upstream JSON-RPC batch (default 10; 1 sends them one by one). A provider that refuses a batch is sent single calls from then on */
                        max_batch_size?: number | null;
                        /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                        method_costs?: {
                            [key: string]: number;
                        } | null;
                    }[];
                    pools?: {
                        name: string;
                        category: string;
                        description?: string | null;
                        /** @enum {string|null} */
                        rotation_strategy?: "round_robin" | "weighted" | "priority" | "least_used" | "random" | "least_latency" | "least_outstanding" | "consistent_hash" | null;
                        /** @description consecutive failures that start a cooldown (default 3) */
                        failure_threshold?: number | null;
                        /** @description first cooldown, doubled for each further trip (default 30) */
                        cooldown_seconds?: number | null;
                        /** @description cap of the doubling (default 300) */
                        max_cooldown_seconds?: number | null;
                        /**
                         * @description when every enabled member is cooling down: use the one whose cooldown ends first (default), or answer 404
                         * @enum {string|null}
                         */
                        all_down?: "soonest" | "fail" | null;
                        /** @description proxy: providers tried per request (default 3) */
                        max_attempts?: number | null;
                        /** @description proxy: retry POST and PATCH without an Idempotency-Key too (default false) */
                        retry_non_idempotent?: boolean | null;
                        /** @description proxy: forward the client's Authorization and Cookie headers (default false) */
                        forward_client_auth?: boolean | null;
                        /** @description proxy: how long a provider's 403 for a resource keeps it from that resource (default 3,600) */
                        forbidden_ttl_seconds?: number | null;
                        /** @description proxy: how long an answer to a GET is served from the cache (default 0: no cache) */
                        cache_ttl_seconds?: number | null;
                        /** @description proxy: how long after that a cached answer is still served as STALE, while it is refreshed or when every member fails (default 0) */
                        cache_stale_seconds?: number | null;
                        /** @description proxy: how long a request may wait for a member to become eligible instead of answering 503 (default 0) */
                        max_wait_ms?: number | null;
                        /** @description proxy: the longest a request may take across all its attempts and waits; past it, 504 (default 30,000) */
                        deadline_ms?: number | null;
                        /** @description proxy: retries allowed over a sliding 10 s window, as a percent of the pool's first attempts, at least 3 (default 20) */
                        retry_budget_percent?: number | null;
                        /** @description proxy: before retry n, a random wait up to this × 2^(n−2) (full jitter; default 0: none) */
                        retry_backoff_ms?: number | null;
                        /** @description proxy: a second attempt to another member when the first has not started answering after this long (default off; 0 turns it off) */
                        hedge_after_ms?: number | null;
                        /**
                         * @description what the pool's requests are: `http` (default) passes them through as they are; `jsonrpc` (JSON-RPC 2.0) and `evm` (JSON-RPC with Ethereum's methods) read each POST as JSON-RPC (docs/api.md, RPC pools)
                         * @enum {string|null}
                         */
                        protocol?: "http" | "jsonrpc" | "evm" | null;
                        /** @description evm: where a node has no `finalized` tag, the finalized block is the pool's highest head − this many blocks (default 64) */
                        finality_depth?: number | null;
                        /** @description evm: how long an answer that may still change (at `latest`, `pending` or a block not yet final) is stored (default 0: shared while in flight, not stored) */
                        cache_unfinalized_ms?: number | null;
                        /** @description evm: seconds between the `eth_blockNumber` checks of each member's head (default 5) */
                        head_check_interval_s?: number | null;
                        /** @description evm: a member more than this many blocks behind the pool's highest head is left out of calls at `latest` (default 5) */
                        max_block_lag?: number | null;
                        /** @description evm: send each eth_sendRawTransaction to every eligible member at once and answer with the first acceptance (default false: one member) */
                        broadcast_writes?: boolean | null;
                        /** @description streams: milliseconds between the pings sent on a stream's connections (default 30,000) */
                        ws_ping_interval_ms?: number | null;
                        /** @description streams: what a stream sends its new upstream after a failover: `none`, `first_second` (the client's messages of its first second; the default) or N (the client's first N messages) */
                        ws_replay?: ("none" | "first_second" | null) | number;
                        /** @description streams: streams open at once through the pool (default 1,000) */
                        ws_max_streams?: number | null;
                        /** @description streams: streams open at once through the pool from one client address (default 100) */
                        ws_max_streams_per_client?: number | null;
                        /** @description streams: the largest message a stream carries, either way, in bytes (default 1,048,576) */
                        ws_max_message_bytes?: number | null;
                        /** @description streams: bytes a stream may hold on their way to a slow reader (default 4,194,304) */
                        ws_send_buffer_bytes?: number | null;
                        /** @description streams: milliseconds a stream may carry no message before it is closed; 0: no limit (default 300,000) */
                        ws_idle_timeout_ms?: number | null;
                        enabled?: boolean | null;
                        members?: {
                            /** @description a provider declared in the same state, by name */
                            provider: string;
                            priority?: number | null;
                            weight?: number | null;
                            enabled?: boolean | null;
                        }[];
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        changes: {
                            kind: "provider" | "pool" | "member";
                            action: "create" | "update" | "delete";
                            /** @description the provider or pool; for a member, pool/provider */
                            name: string;
                            /** @description what changes: credentials shown as their header names with *** values */
                            fields: {
                                [key: string]: {
                                    from: unknown;
                                    to: unknown;
                                };
                            };
                        }[];
                        summary: {
                            create: number;
                            update: number;
                            delete: number;
                        };
                        /** @description true once the changes are committed (apply); false for a plan */
                        applied: boolean;
                        /** @description these changes' fingerprint: apply with ?expect=<it> applies exactly them, or answers 409 when the stored state moved since the plan */
                        fingerprint: string;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description The body is not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getConfigExport: {
        parameters: {
            query?: {
                format?: "json" | "yaml";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description delete providers, pools and members the state does not declare (default false) */
                        prune?: boolean;
                        providers?: {
                            name: string;
                            category?: string | null;
                            /** @description http:// or https:// URL, without user:password@ (credentials go in auth_headers); its query parameters are sent with every request, before the client's */
                            base_url?: string | null;
                            /** @description ws:// or wss:// URL the provider's WebSocket streams go to, without user:password@ (credentials go in auth_headers); null: base_url with ws:// for http:// and wss:// for https:// */
                            ws_url?: string | null;
                            description?: string | null;
                            /** @description quota per fixed, clock-aligned window: exactly one of `requests` and `credits`, with `per` */
                            rate_limit?: {
                                /** @description hand-outs (proxied attempts, rotations) per window */
                                requests?: number;
                                /** @description credits per window, each proxied attempt spending what its call costs (method_costs) */
                                credits?: number;
                                /** @enum {string} */
                                per: "second" | "minute" | "hour" | "day";
                            } | null;
                            /** @description proxy: how long an attempt may wait for the answer to start (default 10,000) */
                            timeout_ms?: number | null;
                            /** @description headers the proxy adds to every request to this provider (for example an API key); answered with the values masked */
                            auth_headers?: {
                                [key: string]: string;
                            } | null;
                            /** @description active health check; null turns it off */
                            health_check?: {
                                /** @description requested with GET, relative to base_url (its path and query come first), e.g. /health */
                                path: string;
                                /** @description seconds between checks (default 10), across every instance sharing the database */
                                interval_s?: number;
                                /** @description the whole check, answer and body (default 2,000); at most interval_s */
                                timeout_ms?: number;
                                /** @description codes and ranges that pass (default ["200-399"]); a redirect is never followed */
                                expect_status?: (number | string)[];
                                /** @description passing checks that bring a member back from a cooldown (default 2) */
                                healthy_threshold?: number;
                                /** @description failing checks in a row that start a cooldown, reason health_check (default 3) */
                                unhealthy_threshold?: number;
                            } | null;
                            /** @description RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601 */
                            methods?: {
                                /** @description only the methods these match (default: every method); leave it out rather than empty */
                                allow?: string[];
                                /** @description never the methods these match, even when allowed */
                                deny?: string[];
                            } | null;
                            /** @description evm pools: the most blocks one eth_getLogs call may span at this provider; a wider call is split into ranges of the smallest limit among the pool's enabled members (null: no limit) */
                            max_logs_range?: number | null;
                            /** @description RPC pools: the most calls of one client batch sent to this provider as one upstream JSON-RPC batch (default 10; 1 sends them one by one). A provider that refuses a batch is sent single calls from then on */
                            max_batch_size?: number | null;
                            /** @description credits a call costs, by JSON-RPC method name or pattern (`*` standing for any run of characters; `"*"` alone is the default, else 1): an exact name first, then the most specific pattern. At most 256 entries of 1 to 1,000,000 credits. Spent when `rate_limit` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them) */
                            method_costs?: {
                                [key: string]: number;
                            } | null;
                        }[];
                        pools?: {
                            name: string;
                            category: string;
                            description?: string | null;
                            /** @enum {string|null} */
                            rotation_strategy?: "round_robin" | "weighted" | "priority" | "least_used" | "random" | "least_latency" | "least_outstanding" | "consistent_hash" | null;
                            /** @description consecutive failures that start a cooldown (default 3) */
                            failure_threshold?: number | null;
                            /** @description first cooldown, doubled for each further trip (default 30) */
                            cooldown_seconds?: number | null;
                            /** @description cap of the doubling (default 300) */
                            max_cooldown_seconds?: number | null;
                            /**
                             * @description when every enabled member is cooling down: use the one whose cooldown ends first (default), or answer 404
                             * @enum {string|null}
                             */
                            all_down?: "soonest" | "fail" | null;
                            /** @description proxy: providers tried per request (default 3) */
                            max_attempts?: number | null;
                            /** @description proxy: retry POST and PATCH without an Idempotency-Key too (default false) */
                            retry_non_idempotent?: boolean | null;
                            /** @description proxy: forward the client's Authorization and Cookie headers (default false) */
                            forward_client_auth?: boolean | null;
                            /** @description proxy: how long a provider's 403 for a resource keeps it from that resource (default 3,600) */
                            forbidden_ttl_seconds?: number | null;
                            /** @description proxy: how long an answer to a GET is served from the cache (default 0: no cache) */
                            cache_ttl_seconds?: number | null;
                            /** @description proxy: how long after that a cached answer is still served as STALE, while it is refreshed or when every member fails (default 0) */
                            cache_stale_seconds?: number | null;
                            /** @description proxy: how long a request may wait for a member to become eligible instead of answering 503 (default 0) */
                            max_wait_ms?: number | null;
                            /** @description proxy: the longest a request may take across all its attempts and waits; past it, 504 (default 30,000) */
                            deadline_ms?: number | null;
                            /** @description proxy: retries allowed over a sliding 10 s window, as a percent of the pool's first attempts, at least 3 (default 20) */
                            retry_budget_percent?: number | null;
                            /** @description proxy: before retry n, a random wait up to this × 2^(n−2) (full jitter; default 0: none) */
                            retry_backoff_ms?: number | null;
                            /** @description proxy: a second attempt to another member when the first has not started answering after this long (default off; 0 turns it off) */
                            hedge_after_ms?: number | null;
                            /**
                             * @description what the pool's requests are: `http` (default) passes them through as they are; `jsonrpc` (JSON-RPC 2.0) and `evm` (JSON-RPC with Ethereum's methods) read each POST as JSON-RPC (docs/api.md, RPC pools)
                             * @enum {string|null}
                             */
                            protocol?: "http" | "jsonrpc" | "evm" | null;
                            /** @description evm: where a node has no `finalized` tag, the finalized block is the pool's highest head − this many blocks (default 64) */
                            finality_depth?: number | null;
                            /** @description evm: how long an answer that may still change (at `latest`, `pending` or a block not yet final) is stored (default 0: shared while in flight, not stored) */
                            cache_unfinalized_ms?: number | null;
                            /** @description evm: seconds between the `eth_blockNumber` checks of each member's head (default 5) */
                            head_check_interval_s?: number | null;
                            /** @description evm: a member more than this many blocks behind the pool's highest head is left out of calls at `latest` (default 5) */
                            max_block_lag?: number | null;
                            /** @description evm: send each eth_sendRawTransaction to every eligible member at once and answer with the first acceptance (default false: one member) */
                            broadcast_writes?: boolean | null;
                            /** @description streams: milliseconds between the pings sent on a stream's connections (default 30,000) */
                            ws_ping_interval_ms?: number | null;
                            /** @description streams: what a stream sends its new upstream after a failover: `none`, `first_second` (the client's messages of its first second; the default) or N (the client's first N messages) */
                            ws_replay?: ("none" | "first_second" | null) | number;
                            /** @description streams: streams open at once through the pool (default 1,000) */
                            ws_max_streams?: number | null;
                            /** @description streams: streams open at once through the pool from one client address (default 100) */
                            ws_max_streams_per_client?: number | null;
                            /** @description streams: the largest message a stream carries, either way, in bytes (default 1,048,576) */
                            ws_max_message_bytes?: number | null;
                            /** @description streams: bytes a stream may hold on their way to a slow reader (default 4,194,304) */
                            ws_send_buffer_bytes?: number | null;
                            /** @description streams: milliseconds a stream may carry no message before it is closed; 0: no limit (default 300,000) */
                            ws_idle_timeout_ms?: number | null;
                            enabled?: boolean | null;
                            members?: {
                                /** @description a provider declared in the same state, by name */
                                provider: string;
                                priority?: number | null;
                                weight?: number | null;
                                enabled?: boolean | null;
                            }[];
                        }[];
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getV1StatusEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        total: number;
                        by_status: {
                            registered: {
                                count: number;
                                share: number;
                            };
                            partial: {
                                count: number;
                                share: number;
                            };
                            unregistered: {
                                count: number;
                                share: number;
                            };
                        };
                        routes: {
                            method: string;
                            path: string;
                            status: string;
                            purpose: string;
                            /** @description what the live router answers for this route */
                            mounted: boolean;
                        }[];
                        /** @description every registered and partial route is mounted, no unregistered one is */
                        consistent: boolean;
                    };
                };
            };
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    postV1InvestigationsStart: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
    getV1WsChat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    postGraphql: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Default Response */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: {
                            message: string;
                        }[];
                    };
                };
            };
        };
    };
    postV1AgentsAgentName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No bearer token, or one that is not configured */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The token's scope does not allow this operation */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @description pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error */
                            type: string;
                            loc: (string | number)[];
                            msg: string;
                            /** @description the value refused (for missing, the object lacking the field); credentials masked, long values cut */
                            input: unknown;
                            ctx?: {
                                [key: string]: unknown;
                            };
                            /** @description pydantic's page on the error type */
                            url?: string;
                        }[];
                    };
                };
            };
            /** @description Too many requests (failed authentications, or the admin rate limit); see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Error */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: string;
                    };
                };
            };
        };
    };
}
